//! A Rust staticlib differentiated from C: built with `-C linker-plugin-lto`, its bitcode
//! carries rustc's allocator shims, which inline the default allocator's `__rdl_alloc`,
//! `__rdl_realloc` and `__rdl_dealloc` into `energy`. The `Vec`s are collected, grown
//! one `push` at a time from capacity 1 (a reallocation) and dropped inside the function.

/// sum over i of w_i^2 with w = x * x + 0.5 x_{i+1}, then the running products of w pushed
/// onto a growing Vec, each contributing its sine
#[no_mangle]
pub extern "C" fn energy(x: *const f64, n: usize) -> f64 {
    let xs = unsafe { std::slice::from_raw_parts(x, n) };
    let w: Vec<f64> = xs
        .iter()
        .enumerate()
        .map(|(i, a)| a * a + 0.5 * xs[(i + 1) % n])
        .collect();
    let mut prods: Vec<f64> = Vec::with_capacity(1);
    let mut p = 1.0;
    for v in &w {
        p *= v;
        prods.push(p);
    }
    w.iter().map(|v| v * v).sum::<f64>() + prods.iter().map(|q| q.sin()).sum::<f64>()
}
