//! The model and its loss (a module of the crate whose root is main.rs).

pub fn predict(w: &[f64], x: &[f64]) -> f64 {
    w.iter().zip(x.iter()).map(|(a, b)| a * b).sum::<f64>().tanh()
}

/// Squared error of a one-neuron model over rows of `k` features followed by a target.
#[no_mangle]
pub extern "C" fn fit_loss(w: *const f64, rows: *const f64, n: usize, k: usize) -> f64 {
    let w = unsafe { std::slice::from_raw_parts(w, k) };
    let rows = unsafe { std::slice::from_raw_parts(rows, n * (k + 1)) };
    let errors: Vec<f64> = rows
        .chunks(k + 1)
        .map(|r| predict(w, &r[..k]) - r[k])
        .collect();
    errors.iter().map(|e| e * e).sum::<f64>() * 0.5
}
