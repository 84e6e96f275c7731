//! N-body with `Vec` state: the bodies live in a `Vec<Body>` built with `push` (grown
//! from capacity 1), each step collects accelerations into a new `Vec` and a temporary
//! `Vec<f64>` per pair, all dropped inside the differentiated function. The gradient of
//! the kinetic energy after five steps with respect to every initial position, velocity
//! and mass (reverse mode) is checked against central differences, and a directional
//! derivative (forward mode) against the reverse-mode gradient.
use std::os::raw::c_int;

extern "C" {
    static enzyme_dup: c_int;
    static enzyme_const: c_int;
    fn __enzyme_autodiff(f: extern "C" fn(*const f64, usize) -> f64, ...);
    fn __enzyme_fwddiff(f: extern "C" fn(*const f64, usize) -> f64, ...) -> f64;
}

#[derive(Clone, Copy)]
struct Body {
    p: [f64; 3],
    v: [f64; 3],
    m: f64,
}

fn step(bodies: &mut Vec<Body>, dt: f64) {
    let n = bodies.len();
    let mut acc: Vec<[f64; 3]> = Vec::new();
    for i in 0..n {
        let mut a = [0.0; 3];
        for j in 0..n {
            if i == j {
                continue;
            }
            let d: Vec<f64> = (0..3).map(|k| bodies[j].p[k] - bodies[i].p[k]).collect();
            let r2: f64 = d.iter().map(|x| x * x).sum::<f64>() + 0.01;
            let inv = bodies[j].m / (r2 * r2.sqrt());
            for k in 0..3 {
                a[k] += d[k] * inv;
            }
        }
        acc.push(a);
    }
    for (b, a) in bodies.iter_mut().zip(acc.iter()) {
        for k in 0..3 {
            b.v[k] += dt * a[k];
            b.p[k] += dt * b.v[k];
        }
    }
}

/// Kinetic energy after five steps; `x` holds 7 numbers per body (position, velocity,
/// mass).
#[no_mangle]
pub extern "C" fn energy_after(x: *const f64, n: usize) -> f64 {
    let xs = unsafe { std::slice::from_raw_parts(x, 7 * n) };
    let mut bodies: Vec<Body> = Vec::with_capacity(1);
    for c in xs.chunks(7) {
        bodies.push(Body { p: [c[0], c[1], c[2]], v: [c[3], c[4], c[5]], m: c[6] });
    }
    for _ in 0..5 {
        step(&mut bodies, 0.01);
    }
    bodies.iter().map(|b| 0.5 * b.m * b.v.iter().map(|v| v * v).sum::<f64>()).sum()
}

fn main() {
    let n = 3;
    let x: Vec<f64> = (0..7 * n).map(|i| 0.3 + ((i * 7919) % 13) as f64 * 0.17).collect();
    let mut dx = vec![0.0; 7 * n];
    unsafe {
        __enzyme_autodiff(energy_after, enzyme_dup, x.as_ptr(), dx.as_mut_ptr(), enzyme_const, n);
    }
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    for i in 0..7 * n {
        let mut xp = x.clone();
        xp[i] += h;
        let mut xm = x.clone();
        xm[i] -= h;
        let fd = (energy_after(xp.as_ptr(), n) - energy_after(xm.as_ptr(), n)) / (2.0 * h);
        worst = worst.max((fd - dx[i]).abs() / (1.0 + fd.abs()));
    }
    let dir: Vec<f64> = (0..7 * n).map(|i| ((i % 5) as f64 - 2.0) * 0.5).collect();
    let fwd = unsafe {
        __enzyme_fwddiff(energy_after, enzyme_dup, x.as_ptr(), dir.as_ptr(), enzyme_const, n)
    };
    let rev: f64 = dx.iter().zip(dir.iter()).map(|(g, t)| g * t).sum();
    println!("gradient vs central differences: {:e}", worst);
    println!("forward {:.12} reverse {:.12}", fwd, rev);
    assert!(dx.iter().any(|g| g.abs() > 1e-3), "a zero gradient proves nothing");
    if worst < 1e-6 && (fwd - rev).abs() < 1e-10 * (1.0 + rev.abs()) {
        println!("OK");
    } else {
        println!("MISMATCH");
        std::process::exit(1);
    }
}
