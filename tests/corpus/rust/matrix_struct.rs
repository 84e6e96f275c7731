//! A dense matrix type with indexing traits, in-place ops and a Cholesky factorization.
use std::ops::{Index, IndexMut};

#[derive(Clone, Debug)]
struct Matrix {
    n: usize,
    data: Vec<f64>,
}

impl Matrix {
    fn identity(n: usize) -> Self {
        let mut m = Matrix { n, data: vec![0.0; n * n] };
        for i in 0..n {
            m[(i, i)] = 1.0;
        }
        m
    }

    fn cholesky(&self) -> Result<Matrix, usize> {
        let n = self.n;
        let mut l = Matrix { n, data: vec![0.0; n * n] };
        for j in 0..n {
            let mut d = self[(j, j)];
            for k in 0..j {
                d -= l[(j, k)] * l[(j, k)];
            }
            if d <= 0.0 {
                return Err(j);
            }
            l[(j, j)] = d.sqrt();
            for i in j + 1..n {
                let mut s = self[(i, j)];
                for k in 0..j {
                    s -= l[(i, k)] * l[(j, k)];
                }
                l[(i, j)] = s / l[(j, j)];
            }
        }
        Ok(l)
    }
}

impl Index<(usize, usize)> for Matrix {
    type Output = f64;
    fn index(&self, (i, j): (usize, usize)) -> &f64 {
        &self.data[i * self.n + j]
    }
}

impl IndexMut<(usize, usize)> for Matrix {
    fn index_mut(&mut self, (i, j): (usize, usize)) -> &mut f64 {
        &mut self.data[i * self.n + j]
    }
}

fn main() {
    let mut a = Matrix::identity(4);
    for i in 0..4 {
        for j in 0..4 {
            a[(i, j)] += 1.0 / (1.0 + (i + j) as f64);
        }
    }
    match a.cholesky() {
        Ok(l) => println!("L[3,3] = {:.6}", l[(3, 3)]),
        Err(j) => println!("not positive definite at {}", j),
    }
}
