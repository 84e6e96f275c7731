//! A robust statistics pipeline: a trimmed mean after sort_by(partial_cmp) and
//! Option's `?`, per-bin sums, a sliding-window mean in a VecDeque, validation through
//! Result and `?` (an error enum holding a String), labels built with format! into a
//! Vec<String> and reported with println!, scratch in a Box<[f64]>. Reverse and forward
//! mode checked against central differences.
use std::collections::VecDeque;
use std::os::raw::c_int;

extern "C" {
    static enzyme_dup: c_int;
    static enzyme_const: c_int;
    fn __enzyme_autodiff(f: extern "C" fn(*const f64, usize) -> f64, ...);
    fn __enzyme_fwddiff(f: extern "C" fn(*const f64, usize) -> f64, ...) -> f64;
}

#[derive(Debug)]
enum StatError { Empty(String), NotFinite(usize) }

fn check(x: &[f64]) -> Result<(), StatError> {
    if x.is_empty() { return Err(StatError::Empty(format!("series of length {}", x.len()))); }
    for (i, v) in x.iter().enumerate() {
        if !v.is_finite() { return Err(StatError::NotFinite(i)); }
    }
    Ok(())
}

fn trimmed_mean(x: &[f64], trim: usize) -> Option<f64> {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let kept = v.get(trim..v.len().checked_sub(trim)?)?;
    if kept.is_empty() { return None; }
    Some(kept.iter().sum::<f64>() / kept.len() as f64)
}

fn binned(x: &[f64], width: usize) -> Vec<f64> {
    let mut bins = vec![0.0; (x.len() + width - 1) / width];
    for (i, v) in x.iter().enumerate() {
        bins[i / width] += v * v;
    }
    bins
}

fn smooth(x: &[f64], window: usize) -> Vec<f64> {
    let mut q: VecDeque<f64> = VecDeque::with_capacity(window);
    let mut out = Vec::new();
    let mut acc = 0.0;
    for &v in x {
        q.push_back(v);
        acc += v;
        if q.len() > window { acc -= q.pop_front().unwrap(); }
        out.push(acc / q.len() as f64);
    }
    out
}

fn statistic(x: &[f64]) -> Result<f64, StatError> {
    check(x)?;
    let n = x.len();
    let mut scratch: Box<[f64]> = vec![0.0; n].into_boxed_slice();
    for (s, v) in scratch.iter_mut().zip(x) { *s = v.tanh(); }
    let tm = trimmed_mean(&scratch, 2).ok_or_else(|| StatError::Empty(String::from("trimmed")))?;
    let bins = binned(x, 3);
    let mut labels = Vec::new();
    let mut binsum = 0.0;
    for (k, v) in bins.iter().enumerate() {
        labels.push(format!("bin{}={:.3}", k, v));
        binsum += (k as f64 + 1.0) * v.sqrt();
    }
    let sm = smooth(&scratch, 3);
    let rough: f64 = sm.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum();
    let label = labels.join(",");
    if label.len() > 40 {
        println!("long summary: {}", label);
    }
    Ok(tm + 0.1 * binsum + rough)
}

#[no_mangle]
pub extern "C" fn robust(x: *const f64, n: usize) -> f64 {
    let x = unsafe { std::slice::from_raw_parts(x, n) };
    match statistic(x) {
        Ok(v) => v,
        Err(e) => { eprintln!("error: {:?}", e); f64::NAN }
    }
}

fn main() {
    let x: Vec<f64> = (0..10).map(|i| ((i * 13 % 7) as f64 - 3.1) * 0.31 + 0.01 * i as f64).collect();
    let n = x.len();
    let mut g = vec![0.0; n];
    unsafe { __enzyme_autodiff(robust, enzyme_dup, x.as_ptr(), g.as_mut_ptr(), enzyme_const, n) };
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    for i in 0..n {
        let mut xp = x.clone(); xp[i] += h;
        let mut xm = x.clone(); xm[i] -= h;
        let fd = (robust(xp.as_ptr(), n) - robust(xm.as_ptr(), n)) / (2.0 * h);
        let mut e = vec![0.0; n]; e[i] = 1.0;
        let fwd = unsafe { __enzyme_fwddiff(robust, enzyme_dup, x.as_ptr(), e.as_ptr(), enzyme_const, n) };
        println!("{} rev {:.10} fwd {:.10} fd {:.10}", i, g[i], fwd, fd);
        worst = worst.max((fd - g[i]).abs()).max((fwd - g[i]).abs());
    }
    assert!(g.iter().all(|v| v.abs() > 1e-4));
    if worst < 1e-6 { println!("OK") } else { println!("MISMATCH {:e}", worst); std::process::exit(1) }
}
