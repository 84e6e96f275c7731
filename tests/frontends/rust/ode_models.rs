//! Two styles of model code: a generic RK4 integrator taking the right-hand side as a
//! closure that captures the parameters (Lotka-Volterra; the misfit of the final state
//! differentiated with respect to the parameters and the initial state), and energies
//! behind a trait (a Vec<Box<dyn Model>> summed through dynamic dispatch, a &dyn Model
//! argument, generic code over a small num-traits style Float trait). Reverse and
//! forward mode checked against central differences.
use std::ops::{Add, Mul, Sub, Div, Neg};
use std::os::raw::c_int;

extern "C" {
    static enzyme_dup: c_int;
    static enzyme_const: c_int;
    fn __enzyme_autodiff(f: *const (), ...);
    fn __enzyme_fwddiff(f: *const (), ...) -> f64;
}

fn rk4_step<F>(f: &F, t: f64, y: &mut [f64], h: f64, k: &mut [Vec<f64>; 4], tmp: &mut [f64])
where
    F: Fn(f64, &[f64], &mut [f64]),
{
    let n = y.len();
    f(t, y, &mut k[0]);
    for i in 0..n { tmp[i] = y[i] + 0.5 * h * k[0][i]; }
    f(t + 0.5 * h, tmp, &mut k[1]);
    for i in 0..n { tmp[i] = y[i] + 0.5 * h * k[1][i]; }
    f(t + 0.5 * h, tmp, &mut k[2]);
    for i in 0..n { tmp[i] = y[i] + h * k[2][i]; }
    f(t + h, tmp, &mut k[3]);
    for i in 0..n {
        y[i] += h / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
    }
}

pub fn integrate<F: Fn(f64, &[f64], &mut [f64])>(f: F, y0: &[f64], t_end: f64, steps: usize) -> Vec<f64> {
    let n = y0.len();
    let mut y = y0.to_vec();
    let mut k = [vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]];
    let mut tmp = vec![0.0; n];
    let h = t_end / steps as f64;
    let mut t = 0.0;
    for _ in 0..steps {
        rk4_step(&f, t, &mut y, h, &mut k, &mut tmp);
        t += h;
    }
    y
}

/// p = [alpha, beta, delta, gamma], y0 = [prey, predator]
#[no_mangle]
pub extern "C" fn misfit(p: *const f64, y0: *const f64, steps: usize) -> f64 {
    let p = unsafe { std::slice::from_raw_parts(p, 4) };
    let y0 = unsafe { std::slice::from_raw_parts(y0, 2) };
    let (alpha, beta, delta, gamma) = (p[0], p[1], p[2], p[3]);
    let rhs = move |_t: f64, y: &[f64], dy: &mut [f64]| {
        dy[0] = alpha * y[0] - beta * y[0] * y[1];
        dy[1] = delta * y[0] * y[1] - gamma * y[1];
    };
    let y = integrate(rhs, y0, 2.0, steps);
    let target = [1.2, 0.8];
    y.iter().zip(target.iter()).map(|(a, b)| (a - b).powi(2)).sum::<f64>()
}

fn check_rk4() -> f64 {
    let p = [1.1, 0.4, 0.3, 0.9];
    let y0 = [1.0, 0.7];
    let steps = 50;
    let mut gp = [0.0; 4];
    let mut gy = [0.0; 2];
    unsafe { __enzyme_autodiff(misfit as *const (), enzyme_dup, p.as_ptr(), gp.as_mut_ptr(), enzyme_dup, y0.as_ptr(), gy.as_mut_ptr(), enzyme_const, steps) };
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    for i in 0..6 {
        let (mut pp, mut pm, mut yp, mut ym) = (p, p, y0, y0);
        let (mut ep, mut ey) = ([0.0; 4], [0.0; 2]);
        let rev = if i < 4 { pp[i] += h; pm[i] -= h; ep[i] = 1.0; gp[i] } else { yp[i - 4] += h; ym[i - 4] -= h; ey[i - 4] = 1.0; gy[i - 4] };
        let fd = (misfit(pp.as_ptr(), yp.as_ptr(), steps) - misfit(pm.as_ptr(), ym.as_ptr(), steps)) / (2.0 * h);
        let fwd = unsafe { __enzyme_fwddiff(misfit as *const (), enzyme_dup, p.as_ptr(), ep.as_ptr(), enzyme_dup, y0.as_ptr(), ey.as_ptr(), enzyme_const, steps) };
        println!("{} rev {:.10} fwd {:.10} fd {:.10}", i, rev, fwd, fd);
        worst = worst.max((fd - rev).abs()).max((fwd - rev).abs());
    }
    assert!(gp.iter().chain(gy.iter()).all(|v| v.abs() > 1e-5));
    worst
}

pub trait Float:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    fn zero() -> Self;
    fn one() -> Self;
    fn from_f64(v: f64) -> Self;
    fn exp(self) -> Self;
    fn sqrt(self) -> Self;
}
impl Float for f64 {
    fn zero() -> Self { 0.0 }
    fn one() -> Self { 1.0 }
    fn from_f64(v: f64) -> Self { v }
    fn exp(self) -> Self { f64::exp(self) }
    fn sqrt(self) -> Self { f64::sqrt(self) }
}

fn softplus<T: Float>(x: T) -> T { (T::one() + x.exp()).sqrt() * (T::one() + x.exp()).sqrt() } // = 1 + e^x
fn morse<T: Float>(r: T, d: T, a: T, r0: T) -> T {
    let e = (-(a * (r - r0))).exp();
    d * (T::one() - e) * (T::one() - e)
}
fn pair_sum<T: Float>(x: &[T], f: impl Fn(T) -> T) -> T {
    let mut s = T::zero();
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            let d = x[i] - x[j];
            s = s + f((d * d + T::from_f64(1e-2)).sqrt());
        }
    }
    s
}

pub trait Model {
    fn energy(&self, x: &[f64]) -> f64;
    fn name(&self) -> &str { "model" }
}

struct Harmonic { k: f64, center: f64 }
struct Morse { d: f64, a: f64, r0: f64 }
struct Anchored { inner: Box<dyn Model>, weight: f64 }

impl Model for Harmonic {
    fn energy(&self, x: &[f64]) -> f64 {
        x.iter().map(|v| 0.5 * self.k * (v - self.center) * (v - self.center)).sum()
    }
    fn name(&self) -> &str { "harmonic" }
}
impl Model for Morse {
    fn energy(&self, x: &[f64]) -> f64 { pair_sum(x, |r| morse(r, self.d, self.a, self.r0)) }
}
impl Model for Anchored {
    fn energy(&self, x: &[f64]) -> f64 {
        self.weight * self.inner.energy(x) + softplus(x[0]) * 0.1
    }
}

fn total(models: &[Box<dyn Model>], x: &[f64]) -> f64 {
    models.iter().map(|m| m.energy(x)).sum()
}

fn scaled(m: &dyn Model, x: &[f64], s: f64) -> f64 { s * m.energy(x) }

#[no_mangle]
pub extern "C" fn system_energy(x: *const f64, n: usize) -> f64 {
    let x = unsafe { std::slice::from_raw_parts(x, n) };
    let k = 1.0 + 0.1 * n as f64;
    let models: Vec<Box<dyn Model>> = vec![
        Box::new(Harmonic { k, center: 0.3 }),
        Box::new(Morse { d: 0.7, a: 1.3, r0: 0.9 }),
        Box::new(Anchored { inner: Box::new(Harmonic { k: 2.0, center: -0.1 }), weight: 0.25 }),
    ];
    let extra = Morse { d: 0.2, a: 2.0, r0: 0.5 };
    total(&models, x) + scaled(&extra, x, 0.5)
}

fn check_models() -> f64 {
    let n = 5;
    let x: Vec<f64> = (0..n).map(|i| 0.4 * i as f64 - 0.7 + 0.03 * (i * i) as f64).collect();
    let mut g = vec![0.0; n];
    unsafe { __enzyme_autodiff(system_energy as *const (), enzyme_dup, x.as_ptr(), g.as_mut_ptr(), enzyme_const, n) };
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    for i in 0..n {
        let mut xp = x.clone(); xp[i] += h;
        let mut xm = x.clone(); xm[i] -= h;
        let fd = (system_energy(xp.as_ptr(), n) - system_energy(xm.as_ptr(), n)) / (2.0 * h);
        let mut e = vec![0.0; n]; e[i] = 1.0;
        let fwd = unsafe { __enzyme_fwddiff(system_energy as *const (), enzyme_dup, x.as_ptr(), e.as_ptr(), enzyme_const, n) };
        println!("{} rev {:.10} fwd {:.10} fd {:.10}", i, g[i], fwd, fd);
        worst = worst.max((fd - g[i]).abs()).max((fwd - g[i]).abs());
    }
    assert!(g.iter().all(|v| v.abs() > 1e-4));
    worst
}

fn main() {
    let worst = check_rk4().max(check_models());
    if worst < 1e-6 { println!("OK") } else { println!("MISMATCH {:e}", worst); std::process::exit(1) }
}
