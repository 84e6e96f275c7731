//! Least-squares fit of y = a * exp(-b t) + c * sin(t) to noisy samples, written with
//! iterator chains; the gradient of the loss by irgrad (reverse and forward mode) checked
//! against central differences.
use std::os::raw::c_int;

extern "C" {
    static enzyme_dup: c_int;
    static enzyme_const: c_int;
    fn __enzyme_autodiff(f: extern "C" fn(*const f64, *const f64, usize) -> f64, ...);
    fn __enzyme_fwddiff(f: extern "C" fn(*const f64, *const f64, usize) -> f64, ...) -> f64;
}

fn model(p: &[f64], t: f64) -> f64 {
    p[0] * (-p[1] * t).exp() + p[2] * t.sin()
}

/// Mean squared residual; `data` holds (t, y) pairs.
#[no_mangle]
pub extern "C" fn loss(params: *const f64, data: *const f64, n: usize) -> f64 {
    let p = unsafe { std::slice::from_raw_parts(params, 3) };
    let d = unsafe { std::slice::from_raw_parts(data, 2 * n) };
    let (ts, ys): (Vec<f64>, Vec<f64>) = d.chunks_exact(2).map(|c| (c[0], c[1])).unzip();
    let mut residuals: Vec<f64> = Vec::new();
    residuals.reserve(n / 2);
    residuals.extend(ts.iter().zip(ys.iter()).map(|(&t, &y)| model(p, t) - y));
    let reg: f64 = p.iter().map(|v| 1e-3 * v * v).sum();
    residuals.iter().zip(residuals.iter()).map(|(r, s)| r * s).sum::<f64>() / n as f64 + reg
}

fn main() {
    let n = 40;
    let data: Vec<f64> = (0..n)
        .flat_map(|i| {
            let t = 0.1 * i as f64;
            let noise = 0.01 * ((i * 37 % 11) as f64 - 5.0);
            [t, 2.0 * (-0.7 * t).exp() + 0.5 * t.sin() + noise]
        })
        .collect();
    let p = vec![1.5, 0.4, 0.2];
    let mut grad = vec![0.0; 3];
    let mut ddata = vec![0.0; 2 * n];
    unsafe {
        __enzyme_autodiff(loss, enzyme_dup, p.as_ptr(), grad.as_mut_ptr(),
                          enzyme_dup, data.as_ptr(), ddata.as_mut_ptr(), enzyme_const, n);
    }
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    for i in 0..3 {
        let mut pp = p.clone(); pp[i] += h;
        let mut pm = p.clone(); pm[i] -= h;
        let fd = (loss(pp.as_ptr(), data.as_ptr(), n) - loss(pm.as_ptr(), data.as_ptr(), n)) / (2.0 * h);
        let mut e = vec![0.0; 3]; e[i] = 1.0;
        let zero = vec![0.0; 2 * n];
        let fwd = unsafe {
            __enzyme_fwddiff(loss, enzyme_dup, p.as_ptr(), e.as_ptr(),
                             enzyme_dup, data.as_ptr(), zero.as_ptr(), enzyme_const, n)
        };
        println!("dloss/dp{} reverse {:.12} forward {:.12} fd {:.12}", i, grad[i], fwd, fd);
        worst = worst.max((fd - grad[i]).abs()).max((fwd - grad[i]).abs());
    }
    for k in [0, 7, 2 * n - 1] {
        let mut dp = data.clone(); dp[k] += h;
        let mut dm = data.clone(); dm[k] -= h;
        let fd = (loss(p.as_ptr(), dp.as_ptr(), n) - loss(p.as_ptr(), dm.as_ptr(), n)) / (2.0 * h);
        println!("dloss/ddata{} reverse {:.12} fd {:.12}", k, ddata[k], fd);
        worst = worst.max((fd - ddata[k]).abs());
    }
    assert!(grad.iter().all(|g| g.abs() > 1e-4), "a zero gradient proves nothing");
    if worst < 1e-7 {
        println!("OK");
    } else {
        println!("MISMATCH {:e}", worst);
        std::process::exit(1);
    }
}
