//! Option and Result: ? operator, custom error enums, combinators, From conversions.
#![crate_type = "lib"]
use std::fmt;
use std::num::ParseIntError;

#[derive(Debug, PartialEq)]
pub enum ConfigError {
    Missing(&'static str),
    BadNumber(String),
    OutOfRange { key: &'static str, value: i64 },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Missing(k) => write!(f, "missing key {}", k),
            ConfigError::BadNumber(s) => write!(f, "bad number {}", s),
            ConfigError::OutOfRange { key, value } => write!(f, "{} = {} out of range", key, value),
        }
    }
}

impl From<ParseIntError> for ConfigError {
    fn from(e: ParseIntError) -> Self {
        ConfigError::BadNumber(e.to_string())
    }
}

fn lookup<'a>(pairs: &'a [(&'a str, &'a str)], key: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

pub fn parse_port(pairs: &[(&str, &str)]) -> Result<u16, ConfigError> {
    let raw = lookup(pairs, "port").ok_or(ConfigError::Missing("port"))?;
    let v: i64 = raw.trim().parse()?;
    if !(1..=65535).contains(&v) {
        return Err(ConfigError::OutOfRange { key: "port", value: v });
    }
    Ok(v as u16)
}

pub fn threads_or_default(pairs: &[(&str, &str)]) -> usize {
    lookup(pairs, "threads").and_then(|s| s.parse().ok()).filter(|&n| n > 0).unwrap_or(4)
}

pub fn safe_div(a: f64, b: f64) -> Option<f64> {
    if b == 0.0 { None } else { Some(a / b) }
}

pub fn harmonic_mean(v: &[f64]) -> Option<f64> {
    let inv: Option<Vec<f64>> = v.iter().map(|&x| safe_div(1.0, x)).collect();
    let inv = inv?;
    safe_div(inv.len() as f64, inv.iter().sum())
}

pub fn sum_parsed(items: &[&str]) -> Result<i64, ConfigError> {
    items.iter().map(|s| s.parse::<i64>().map_err(ConfigError::from)).sum()
}

pub fn describe(pairs: &[(&str, &str)]) -> String {
    match parse_port(pairs) {
        Ok(p) => format!("port {}", p),
        Err(e) => e.to_string(),
    }
}
