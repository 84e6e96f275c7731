//! Panics: explicit panic!, bounds checks, overflow checks, catch_unwind, unwrap/expect.
use std::panic;

fn checked_mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        panic!("mean of empty slice");
    }
    v.iter().sum::<f64>() / v.len() as f64
}

fn nth_element(v: &[i32], i: usize) -> i32 {
    v[i] * 2
}

fn factorial(n: u32) -> u32 {
    (1..=n).product()
}

fn divide(a: i32, b: i32) -> i32 {
    a.checked_div(b).expect("division by zero")
}

fn try_run<F: FnOnce() -> R + panic::UnwindSafe, R>(f: F) -> Option<R> {
    panic::catch_unwind(f).ok()
}

fn main() {
    panic::set_hook(Box::new(|_| {}));
    let data = vec![1, 2, 3];
    let a = try_run(|| checked_mean(&[1.0, 2.0, 4.0]));
    let b = try_run(|| checked_mean(&[]));
    let c = try_run(|| nth_element(&data, 7));
    let d = try_run(|| divide(7, 0));
    let e = try_run(|| factorial(std::hint::black_box(20)));
    let n: Option<i32> = None;
    let f = try_run(move || n.unwrap());
    let g: Result<i32, String> = Err("bad".into());
    let h = try_run(move || g.unwrap());
    assert!(a.is_some(), "first mean must succeed");
    println!("{:?} {:?} {:?} {:?} {:?} {:?} {:?}", a, b, c, d, e, f, h);
    if b.is_none() && c.is_none() {
        unreachable!("reached the end with {} failures", 2);
    }
}
