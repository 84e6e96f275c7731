//! Traits and generics: trait objects, generic functions with bounds, operator overloading.
#![crate_type = "lib"]
use std::ops::{Add, Mul};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

impl Add for V2 {
    type Output = V2;
    fn add(self, o: V2) -> V2 {
        V2 { x: self.x + o.x, y: self.y + o.y }
    }
}

impl Mul<f64> for V2 {
    type Output = V2;
    fn mul(self, s: f64) -> V2 {
        V2 { x: self.x * s, y: self.y * s }
    }
}

pub trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> &'static str {
        "shape"
    }
}

pub struct Circle(pub f64);
pub struct Rect(pub f64, pub f64);

impl Shape for Circle {
    fn area(&self) -> f64 {
        std::f64::consts::PI * self.0 * self.0
    }
    fn name(&self) -> &'static str {
        "circle"
    }
}

impl Shape for Rect {
    fn area(&self) -> f64 {
        self.0 * self.1
    }
}

pub fn total_area(shapes: &[Box<dyn Shape>]) -> f64 {
    shapes.iter().map(|s| s.area()).sum()
}

pub fn sum_generic<T: Add<Output = T> + Copy + Default>(v: &[T]) -> T {
    v.iter().fold(T::default(), |a, &b| a + b)
}

pub fn lerp<T>(a: T, b: T, t: f64) -> T
where
    T: Add<Output = T> + Mul<f64, Output = T>,
{
    a * (1.0 - t) + b * t
}

pub fn largest<T: PartialOrd + Copy>(v: &[T]) -> Option<T> {
    let mut it = v.iter();
    let mut best = *it.next()?;
    for &x in it {
        if x > best {
            best = x;
        }
    }
    Some(best)
}

pub fn demo(t: f64) -> f64 {
    let p = lerp(V2 { x: 0.0, y: 1.0 }, V2 { x: 2.0, y: 3.0 }, t);
    let shapes: Vec<Box<dyn Shape>> = vec![Box::new(Circle(1.0)), Box::new(Rect(2.0, t))];
    p.x + p.y + total_area(&shapes) + sum_generic(&[1.5, 2.5]) + largest(&[3, 9, 2]).unwrap_or(0) as f64
}
