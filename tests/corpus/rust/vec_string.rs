//! Vec and String manipulation in an executable: parsing, formatting, sorting, dedup.
use std::collections::HashMap;
use std::fmt::Write;

fn parse_csv_line(line: &str) -> Vec<f64> {
    line.split(',').filter_map(|s| s.trim().parse::<f64>().ok()).collect()
}

fn word_lengths(text: &str) -> HashMap<usize, usize> {
    let mut m = HashMap::new();
    for w in text.split_whitespace() {
        *m.entry(w.chars().count()).or_insert(0) += 1;
    }
    m
}

fn caesar(s: &str, k: u8) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_lowercase() {
                (((c as u8 - b'a' + k) % 26) + b'a') as char
            } else {
                c
            }
        })
        .collect()
}

fn table(rows: &[(String, f64)]) -> String {
    let mut out = String::new();
    for (name, v) in rows {
        writeln!(out, "{:<8}{:>10.3}", name, v).unwrap();
    }
    out
}

fn main() {
    let nums = parse_csv_line("1.5, 2, x, 4.25,  -3");
    let mut sorted = nums.clone();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
    sorted.dedup();
    let mut v: Vec<i32> = (0..20).map(|i| (i * 7) % 11).collect();
    v.sort_unstable();
    v.dedup();
    let lens = word_lengths("the quick brown fox jumps over the lazy dog");
    let rows: Vec<(String, f64)> = nums.iter().enumerate().map(|(i, x)| (format!("row{}", i), *x)).collect();
    print!("{}", table(&rows));
    println!("{:?} {:?} {} {}", sorted, v, lens.get(&5).unwrap_or(&0), caesar("hello, world", 3));
}
