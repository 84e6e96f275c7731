//! A signal-processing style objective written with iterator adaptors: finite
//! differences via windows(2), a moving average via chunks, a log-sum-exp with the
//! running max from fold(f64::NEG_INFINITY, f64::max), reversed/strided sums; and per
//! sample features with the f64 methods physics and statistics code reaches for
//! (sin_cos, hypot, atan2, powi, powf, ln_1p, exp_m1, mul_add, tanh, clamp, signum...).
//! Reverse and forward mode checked against central differences.
use std::os::raw::c_int;

extern "C" {
    static enzyme_dup: c_int;
    static enzyme_const: c_int;
    fn __enzyme_autodiff(f: extern "C" fn(*const f64, usize, f64) -> f64, ...);
    fn __enzyme_fwddiff(f: extern "C" fn(*const f64, usize, f64) -> f64, ...) -> f64;
}

fn log_sum_exp(v: &[f64]) -> f64 {
    let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    m + v.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
}

fn features(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, &v) in x.iter().enumerate() {
        let w = (i + 1) as f64;
        let (sn, cs) = (w * v).sin_cos();
        let r = v.hypot(w * 0.3);
        let theta = (0.5 * v).atan2(1.0 + 0.1 * w);
        let a = v.powi(3) - 0.2 * v.abs().powf(1.7);
        let b = (0.3 * v).exp() + (1.0 + v * v).ln() + (0.5 * v).ln_1p().max(-5.0) + (0.2 * v).exp_m1();
        let c = v.mul_add(0.7, 0.1).tanh() + v.soft_abs();
        let d = (2.0 * v).clamp(-0.9, 0.9) + v.signum() * v.max(0.05).min(1.5);
        s += sn * cs + r + theta + a + b + c + d;
    }
    s
}

trait SoftAbs { fn soft_abs(self) -> f64; }
impl SoftAbs for f64 { fn soft_abs(self) -> f64 { (self * self + 1e-3).sqrt() } }

#[no_mangle]
pub extern "C" fn objective(x: *const f64, n: usize, smooth: f64) -> f64 {
    let x = unsafe { std::slice::from_raw_parts(x, n) };
    let diffs: Vec<f64> = x.windows(2).map(|w| w[1] - w[0]).collect();
    let roughness: f64 = diffs.iter().map(|d| d * d).sum::<f64>() * smooth;
    let averages = x.chunks(3).map(|c| c.iter().sum::<f64>() / c.len() as f64).collect::<Vec<_>>();
    let weighted = x.iter().enumerate().fold(0.0, |acc, (i, v)| acc + (i as f64 + 1.0) * v * v);
    let tail: f64 = x.iter().rev().skip(1).step_by(2).map(|v| v.abs()).sum();
    let peak = averages.iter().zip(diffs.iter().skip(1)).map(|(a, d)| a * d).collect::<Vec<_>>();
    let lse = log_sum_exp(&peak);
    let maxabs = x.iter().map(|v| v.abs()).fold(0.0_f64, f64::max);
    let minv = x.iter().copied().fold(f64::INFINITY, f64::min);
    roughness + 0.1 * weighted + 0.3 * tail + lse + maxabs - 0.5 * minv + 0.2 * features(x)
}

fn main() {
    let n = 11;
    let x: Vec<f64> = (0..n).map(|i| (0.7 * i as f64).sin() + 0.05 * i as f64 - 0.2).collect();
    let smooth = 0.8;
    let mut g = vec![0.0; n];
    unsafe { __enzyme_autodiff(objective, enzyme_dup, x.as_ptr(), g.as_mut_ptr(), enzyme_const, n, enzyme_const, smooth) };
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    for i in 0..n {
        let mut xp = x.clone(); xp[i] += h;
        let mut xm = x.clone(); xm[i] -= h;
        let fd = (objective(xp.as_ptr(), n, smooth) - objective(xm.as_ptr(), n, smooth)) / (2.0 * h);
        let mut e = vec![0.0; n]; e[i] = 1.0;
        let fwd = unsafe { __enzyme_fwddiff(objective, enzyme_dup, x.as_ptr(), e.as_ptr(), enzyme_const, n, enzyme_const, smooth) };
        println!("{:2} rev {:.10} fwd {:.10} fd {:.10}", i, g[i], fwd, fd);
        worst = worst.max((fd - g[i]).abs()).max((fwd - g[i]).abs());
    }
    assert!(g.iter().any(|v| v.abs() > 1e-3));
    if worst < 1e-6 { println!("OK") } else { println!("MISMATCH {:e}", worst); std::process::exit(1) }
}
