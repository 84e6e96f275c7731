//! A statistic that validates its input and reports failures the way library code does:
//! a `Result<f64, StatError>` whose error variants hold a `String` or an index, `?` on
//! both `Result` and `Option`, the error printed with eprintln! and turned into NaN at
//! the C boundary. The gradient is checked against central differences on valid data,
//! and the failing inputs (too short, not finite, empty) are differentiated too: their
//! value is NaN and their gradient zero. The trimmed statistic sorts with
//! `sort_unstable_by` (its quicksort starts with no ancestor pivot, `None`, and recurses
//! with one in the slice).
use std::fmt;
use std::os::raw::c_int;

extern "C" {
    static enzyme_dup: c_int;
    static enzyme_const: c_int;
    fn __enzyme_autodiff(f: extern "C" fn(*const f64, usize) -> f64, ...);
}

#[derive(Debug)]
pub enum StatError {
    Empty(String),
    NotFinite(usize),
}

impl fmt::Display for StatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StatError::Empty(what) => write!(f, "no data: {}", what),
            StatError::NotFinite(i) => write!(f, "sample {} is not finite", i),
        }
    }
}

fn validate(x: &[f64]) -> Result<(), StatError> {
    if x.is_empty() {
        return Err(StatError::Empty(format!("series of length {}", x.len())));
    }
    for (i, v) in x.iter().enumerate() {
        if !v.is_finite() {
            return Err(StatError::NotFinite(i));
        }
    }
    Ok(())
}

/// Mean square of the samples left after dropping the `trim` smallest and largest.
fn trimmed_mean_square(x: &[f64], trim: usize) -> Option<f64> {
    let mut sorted = x.to_vec();
    sorted.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap());
    let kept = sorted.get(trim..x.len().checked_sub(trim)?)?;
    if kept.is_empty() {
        return None;
    }
    Some(kept.iter().map(|v| v * v).sum::<f64>() / kept.len() as f64)
}

pub fn statistic(x: &[f64]) -> Result<f64, StatError> {
    validate(x)?;
    let m = trimmed_mean_square(x, 2).ok_or_else(|| StatError::Empty(String::from("trimmed")))?;
    Ok(m * x[0])
}

#[no_mangle]
pub extern "C" fn robust(x: *const f64, n: usize) -> f64 {
    let x = unsafe { std::slice::from_raw_parts(x, n) };
    match statistic(x) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("robust: {}", e);
            f64::NAN
        }
    }
}

fn main() {
    let x: Vec<f64> = (0..40).map(|i| ((i * 13 % 41) as f64 - 20.3) * 0.031 + 0.001 * i as f64).collect();
    let n = x.len();
    let mut g = vec![0.0; n];
    unsafe { __enzyme_autodiff(robust, enzyme_dup, x.as_ptr(), g.as_mut_ptr(), enzyme_const, n) };
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    for i in 0..n {
        let mut xp = x.clone(); xp[i] += h;
        let mut xm = x.clone(); xm[i] -= h;
        let fd = (robust(xp.as_ptr(), n) - robust(xm.as_ptr(), n)) / (2.0 * h);
        println!("d/dx{} reverse {:.10} fd {:.10}", i, g[i], fd);
        worst = worst.max((fd - g[i]).abs());
    }
    assert!(g[0].abs() > 1e-3 && g[4].abs() > 1e-3, "a zero gradient proves nothing");
    assert!(g.iter().filter(|v| **v == 0.0).count() == 3, "the trimmed samples (but x[0]) have none");
    // the error paths: a String made here, an index, format!'s String
    for bad in [vec![0.5, 0.25, 2.0], vec![0.5, f64::NAN, 2.0, 1.0, 3.0, 4.0], vec![]] {
        let m = bad.len();
        let mut gb = vec![0.0; m.max(1)];
        unsafe { __enzyme_autodiff(robust, enzyme_dup, bad.as_ptr(), gb.as_mut_ptr(), enzyme_const, m) };
        assert!(robust(bad.as_ptr(), m).is_nan());
        assert!(gb.iter().all(|v| *v == 0.0), "gradient of a failed statistic: {:?}", gb);
    }
    if worst < 1e-6 { println!("OK") } else { println!("MISMATCH {:e}", worst); std::process::exit(1) }
}
