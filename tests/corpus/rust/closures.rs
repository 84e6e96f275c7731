//! Closures: Fn/FnMut/FnOnce, boxed closures, returning closures, captured state.
#![crate_type = "lib"]

pub fn apply_n<F: Fn(f64) -> f64>(f: F, n: usize, x0: f64) -> f64 {
    (0..n).fold(x0, |x, _| f(x))
}

pub fn make_affine(a: f64, b: f64) -> impl Fn(f64) -> f64 {
    move |x| a * x + b
}

pub fn make_counter() -> impl FnMut() -> u32 {
    let mut c = 0;
    move || {
        c += 1;
        c
    }
}

pub fn compose_all(fs: Vec<Box<dyn Fn(f64) -> f64>>) -> Box<dyn Fn(f64) -> f64> {
    Box::new(move |x| fs.iter().fold(x, |acc, f| f(acc)))
}

pub fn newton_sqrt(a: f64) -> f64 {
    let step = |x: f64| 0.5 * (x + a / x);
    apply_n(step, 30, if a > 1.0 { a } else { 1.0 })
}

pub fn pipeline(x: f64) -> f64 {
    let f = compose_all(vec![
        Box::new(|v| v + 1.0),
        Box::new(make_affine(2.0, -3.0)),
        Box::new(f64::sin),
    ]);
    f(x)
}

pub fn consume<F: FnOnce() -> String>(f: F) -> usize {
    f().len()
}

pub fn sort_by_key_desc(v: &mut Vec<(String, i32)>) {
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
}

pub fn count_calls(n: u32) -> u32 {
    let mut counter = make_counter();
    let mut last = 0;
    for _ in 0..n {
        last = counter();
    }
    let owned = String::from("moved into closure");
    last + consume(move || owned) as u32
}
