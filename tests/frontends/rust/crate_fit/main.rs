//! A two-file crate: `irgrad cc -O2 main.rs -o fit` compiles the crate root, rustc finds
//! the module `fit` in fit.rs beside it. The markers are defined here as `#[no_mangle]`
//! mutable statics (the other spelling, `extern "C" { static enzyme_dup: c_int; }`, is in
//! the single-file programs): a `static mut` is read at run time, never folded to its
//! value, so each read reaches irgrad as `load i32, ptr @enzyme_dup`.
mod fit;

use std::os::raw::c_int;

#[no_mangle]
pub static mut enzyme_dup: c_int = 0;
#[no_mangle]
pub static mut enzyme_const: c_int = 0;

extern "C" {
    fn __enzyme_autodiff(f: extern "C" fn(*const f64, *const f64, usize, usize) -> f64, ...);
}

fn main() {
    let (n, k) = (6, 3);
    let rows: Vec<f64> = (0..n * (k + 1)).map(|i| ((i * 13 % 7) as f64 - 3.0) * 0.25).collect();
    let w = vec![0.3, -0.2, 0.5];
    let mut dw = vec![0.0; k];
    unsafe {
        __enzyme_autodiff(fit::fit_loss, enzyme_dup, w.as_ptr(), dw.as_mut_ptr(),
                          enzyme_const, rows.as_ptr(), enzyme_const, n, enzyme_const, k);
    }
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    for i in 0..k {
        let mut wp = w.clone(); wp[i] += h;
        let mut wm = w.clone(); wm[i] -= h;
        let fd = (fit::fit_loss(wp.as_ptr(), rows.as_ptr(), n, k)
            - fit::fit_loss(wm.as_ptr(), rows.as_ptr(), n, k)) / (2.0 * h);
        println!("dw{} {:.12} fd {:.12}", i, dw[i], fd);
        worst = worst.max((fd - dw[i]).abs());
    }
    assert!(dw.iter().all(|g| g.abs() > 1e-3), "a zero gradient proves nothing");
    if worst < 1e-8 {
        println!("OK");
    } else {
        println!("MISMATCH {:e}", worst);
        std::process::exit(1);
    }
}
