//! Matrices three ways: Vec<Vec<f64>>, a row-major struct with Index/IndexMut, and
//! Vec<[f64; 3]> points with a small Copy Vec3 type using operator overloading.
use std::ops::{Add, Index, IndexMut, Mul, Sub};
use std::os::raw::c_int;

extern "C" {
    static enzyme_dup: c_int;
    static enzyme_const: c_int;
    fn __enzyme_autodiff(f: extern "C" fn(*const f64, usize) -> f64, ...);
    fn __enzyme_fwddiff(f: extern "C" fn(*const f64, usize) -> f64, ...) -> f64;
}

#[derive(Clone, Copy, Debug)]
struct Vec3 { x: f64, y: f64, z: f64 }

impl Vec3 {
    fn new(x: f64, y: f64, z: f64) -> Self { Vec3 { x, y, z } }
    fn dot(self, o: Vec3) -> f64 { self.x * o.x + self.y * o.y + self.z * o.z }
    fn cross(self, o: Vec3) -> Vec3 {
        Vec3::new(self.y * o.z - self.z * o.y, self.z * o.x - self.x * o.z, self.x * o.y - self.y * o.x)
    }
    fn norm(self) -> f64 { self.dot(self).sqrt() }
}
impl Add for Vec3 { type Output = Vec3; fn add(self, o: Vec3) -> Vec3 { Vec3::new(self.x + o.x, self.y + o.y, self.z + o.z) } }
impl Sub for Vec3 { type Output = Vec3; fn sub(self, o: Vec3) -> Vec3 { Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z) } }
impl Mul<f64> for Vec3 { type Output = Vec3; fn mul(self, s: f64) -> Vec3 { Vec3::new(self.x * s, self.y * s, self.z * s) } }

#[derive(Clone, Debug)]
struct Matrix { data: Vec<f64>, rows: usize, cols: usize }

impl Matrix {
    fn zeros(rows: usize, cols: usize) -> Self { Matrix { data: vec![0.0; rows * cols], rows, cols } }
    fn transpose(&self) -> Matrix {
        let mut t = Matrix::zeros(self.cols, self.rows);
        for i in 0..self.rows { for j in 0..self.cols { t[(j, i)] = self[(i, j)]; } }
        t
    }
    fn trace(&self) -> f64 { (0..self.rows.min(self.cols)).map(|i| self[(i, i)]).sum() }
}
impl Index<(usize, usize)> for Matrix {
    type Output = f64;
    fn index(&self, (i, j): (usize, usize)) -> &f64 { &self.data[i * self.cols + j] }
}
impl IndexMut<(usize, usize)> for Matrix {
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut f64 { &mut self.data[i * self.cols + j] }
}
impl<'a> Mul<&'a Matrix> for &'a Matrix {
    type Output = Matrix;
    fn mul(self, b: &Matrix) -> Matrix {
        assert_eq!(self.cols, b.rows);
        let mut c = Matrix::zeros(self.rows, b.cols);
        for i in 0..self.rows {
            for k in 0..self.cols {
                let a = self[(i, k)];
                for j in 0..b.cols { c[(i, j)] += a * b[(k, j)]; }
            }
        }
        c
    }
}

fn matvec(a: &Vec<Vec<f64>>, x: &[f64]) -> Vec<f64> {
    a.iter().map(|row| row.iter().zip(x).map(|(r, v)| r * v).sum()).collect()
}

/// x holds a 3x3 matrix (9 values) followed by n points of 3 coordinates.
#[no_mangle]
pub extern "C" fn energy(x: *const f64, n: usize) -> f64 {
    let x = unsafe { std::slice::from_raw_parts(x, 9 + 3 * n) };
    let mut m = Matrix::zeros(3, 3);
    for i in 0..3 { for j in 0..3 { m[(i, j)] = x[3 * i + j]; } }
    let mtm = &m.transpose() * &m;
    let rows: Vec<Vec<f64>> = (0..3).map(|i| (0..3).map(|j| mtm[(i, j)]).collect()).collect();
    let pts: Vec<[f64; 3]> = x[9..].chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
    let mut e = 0.1 * mtm.trace();
    let mut prev = Vec3::new(0.1, -0.2, 0.3);
    for p in &pts {
        let y = matvec(&rows, p);
        let v = Vec3::new(y[0], y[1], y[2]);
        let d = v - prev;
        e += 0.5 * d.dot(d) + v.cross(prev).norm() * 0.01;
        prev = v * 0.5 + Vec3::new(p[0], p[1], p[2]);
    }
    e
}

fn main() {
    let n = 4;
    let x: Vec<f64> = (0..9 + 3 * n).map(|i| 0.3 + 0.1 * ((i * 7 % 5) as f64) - 0.02 * i as f64).collect();
    let len = x.len();
    let mut g = vec![0.0; len];
    unsafe { __enzyme_autodiff(energy, enzyme_dup, x.as_ptr(), g.as_mut_ptr(), enzyme_const, n) };
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    for i in 0..len {
        let mut xp = x.clone(); xp[i] += h;
        let mut xm = x.clone(); xm[i] -= h;
        let fd = (energy(xp.as_ptr(), n) - energy(xm.as_ptr(), n)) / (2.0 * h);
        let mut e = vec![0.0; len]; e[i] = 1.0;
        let fwd = unsafe { __enzyme_fwddiff(energy, enzyme_dup, x.as_ptr(), e.as_ptr(), enzyme_const, n) };
        println!("{:2} rev {:.10} fwd {:.10} fd {:.10}", i, g[i], fwd, fd);
        worst = worst.max((fd - g[i]).abs()).max((fwd - g[i]).abs());
    }
    assert!(g.iter().filter(|v| v.abs() > 1e-6).count() == len, "zero gradient entries");
    if worst < 1e-6 { println!("OK") } else { println!("MISMATCH {:e}", worst); std::process::exit(1) }
}
