//! Iterator adaptors: map/filter/fold, zip, windows, chunks, custom iterators.
#![crate_type = "lib"]

pub fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

pub fn sum_of_even_squares(v: &[i64]) -> i64 {
    v.iter().filter(|&&x| x % 2 == 0).map(|&x| x * x).sum()
}

pub fn moving_average(v: &[f64], w: usize) -> Vec<f64> {
    v.windows(w).map(|win| win.iter().sum::<f64>() / w as f64).collect()
}

pub fn chunk_maxima(v: &[i32], size: usize) -> Vec<i32> {
    v.chunks(size).filter_map(|c| c.iter().copied().max()).collect()
}

pub struct Fibonacci {
    a: u64,
    b: u64,
}

impl Iterator for Fibonacci {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        let r = self.a;
        let next = self.a.checked_add(self.b)?;
        self.a = self.b;
        self.b = next;
        Some(r)
    }
}

pub fn fibonacci() -> Fibonacci {
    Fibonacci { a: 0, b: 1 }
}

pub fn sum_fib_below(limit: u64) -> u64 {
    fibonacci().take_while(|&f| f < limit).filter(|f| f % 2 == 0).sum()
}

pub fn argmax(v: &[f64]) -> Option<usize> {
    v.iter()
        .enumerate()
        .max_by(|a, b| a.1.partial_cmp(b.1).unwrap_or(std::cmp::Ordering::Equal))
        .map(|(i, _)| i)
}

pub fn rev_prefix_products(v: &[f64]) -> Vec<f64> {
    let mut acc = 1.0;
    let mut out: Vec<f64> = v
        .iter()
        .rev()
        .map(|x| {
            acc *= x;
            acc
        })
        .collect();
    out.reverse();
    out
}

pub fn flatten_count(nested: &[Vec<u32>]) -> usize {
    nested.iter().flatten().filter(|&&x| x > 10).count()
}
