//! Numbers on SIMD lanes, one agent a lane, of either width: glam's four-lane `Vec4`, which the
//! fast paths use on every target, or [`Wide`], as many lanes as the machine's vector registers
//! hold, for the flocking rules' neighbour scan (see [`on_widest_lanes`]).
//!
//! Each lane does IEEE arithmetic of its own (no fused multiply-adds, no reordering), so a lane's
//! result has the same bits at any width: the width decides only how many agents one pass serves.

// `Wide` is entered only on x86-64 (and by the tests); elsewhere `Vec4`'s four lanes are the
// widest.
#![cfg_attr(not(any(target_arch = "x86_64", test)), allow(dead_code))]

use core::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, Div, Mul, Neg, Not, Sub,
};

use bevy::math::{BVec4A, Vec4};

/// The most lanes a [`Lanes`] type has.
pub(crate) const MOST_LANES: usize = 16;

/// A number for each of [`Lanes::COUNT`] agents, with the operations the fast paths take.
pub(crate) trait Lanes:
    Copy
    + Add<Output = Self>
    + AddAssign
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// Which lanes a comparison holds on.
    type Mask: LaneMask;
    /// How many lanes: at most [`MOST_LANES`].
    const COUNT: usize;
    const ZERO: Self;
    const ONE: Self;

    fn splat(value: f32) -> Self;
    fn from_fn(value: impl FnMut(usize) -> f32) -> Self;
    fn lane(self, lane: usize) -> f32;
    fn sqrt(self) -> Self;
    /// `1.0 / self`.
    fn recip(self) -> Self;
    /// Each lane with its sign bit cleared.
    fn abs(self) -> Self;
    fn cmpeq(self, other: Self) -> Self::Mask;
    fn cmplt(self, other: Self) -> Self::Mask;
    fn cmple(self, other: Self) -> Self::Mask;
    fn cmpgt(self, other: Self) -> Self::Mask;
    fn cmpge(self, other: Self) -> Self::Mask;
    fn is_finite_mask(self) -> Self::Mask;
    /// The lanes whose value is a normal `f32` (not zero, subnormal, infinite or NaN), for values
    /// that are not negative.
    fn is_normal_mask(self) -> Self::Mask;
    /// `if_true`'s lanes where `mask` holds, `if_false`'s elsewhere.
    fn select(mask: Self::Mask, if_true: Self, if_false: Self) -> Self;

    /// Does `work` in a function of its own, compiled for these lanes' instructions (see
    /// [`ApartOn`]).
    fn run_apart<W: ApartOn<Self>>(work: W) -> W::Output;
}

/// Which of a [`Lanes`]' lanes something holds on.
pub(crate) trait LaneMask:
    Copy
    + BitAnd<Output = Self>
    + BitAndAssign
    + BitOr<Output = Self>
    + BitOrAssign
    + Not<Output = Self>
{
    fn splat(value: bool) -> Self;
    fn from_fn(value: impl FnMut(usize) -> bool) -> Self;
    /// Bit `k` set where lane `k` holds.
    fn bitmask(self) -> u32;

    #[inline(always)]
    fn any(self) -> bool {
        self.bitmask() != 0
    }
}

impl Lanes for Vec4 {
    type Mask = BVec4A;
    const COUNT: usize = 4;
    const ZERO: Self = Vec4::ZERO;
    const ONE: Self = Vec4::ONE;

    #[inline(always)]
    fn splat(value: f32) -> Self {
        Vec4::splat(value)
    }
    #[inline(always)]
    fn from_fn(value: impl FnMut(usize) -> f32) -> Self {
        Vec4::from_array(core::array::from_fn(value))
    }
    #[inline(always)]
    fn lane(self, lane: usize) -> f32 {
        self[lane]
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Vec4::sqrt(self)
    }
    #[inline(always)]
    fn recip(self) -> Self {
        Vec4::recip(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Vec4::abs(self)
    }
    #[inline(always)]
    fn cmpeq(self, other: Self) -> BVec4A {
        Vec4::cmpeq(self, other)
    }
    #[inline(always)]
    fn cmplt(self, other: Self) -> BVec4A {
        Vec4::cmplt(self, other)
    }
    #[inline(always)]
    fn cmple(self, other: Self) -> BVec4A {
        Vec4::cmple(self, other)
    }
    #[inline(always)]
    fn cmpgt(self, other: Self) -> BVec4A {
        Vec4::cmpgt(self, other)
    }
    #[inline(always)]
    fn cmpge(self, other: Self) -> BVec4A {
        Vec4::cmpge(self, other)
    }
    #[inline(always)]
    fn is_finite_mask(self) -> BVec4A {
        Vec4::is_finite_mask(self)
    }
    #[inline(always)]
    fn is_normal_mask(self) -> BVec4A {
        self.cmpge(Vec4::splat(f32::MIN_POSITIVE)) & self.cmplt(Vec4::INFINITY)
    }
    #[inline(always)]
    fn select(mask: BVec4A, if_true: Self, if_false: Self) -> Self {
        Vec4::select(mask, if_true, if_false)
    }
    #[inline(always)]
    fn run_apart<W: ApartOn<Self>>(work: W) -> W::Output {
        apart(work)
    }
}

impl LaneMask for BVec4A {
    #[inline(always)]
    fn splat(value: bool) -> Self {
        BVec4A::splat(value)
    }
    #[inline(always)]
    fn from_fn(value: impl FnMut(usize) -> bool) -> Self {
        BVec4A::from_array(core::array::from_fn(value))
    }
    #[inline(always)]
    fn bitmask(self) -> u32 {
        BVec4A::bitmask(self)
    }
}

/// `N` lanes as plain arrays, whose element-wise loops the compiler turns into vector
/// instructions of the width the build (or [`on_widest_lanes`]' dispatch) allows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wide<const N: usize>([f32; N]);

/// A [`Wide`]'s mask: all bits set on the lanes where it holds, as vector comparisons give it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WideMask<const N: usize>([u32; N]);

impl<const N: usize> Wide<N> {
    #[inline(always)]
    fn map(self, f: impl Fn(f32) -> f32) -> Self {
        let mut out = self.0;
        for value in &mut out {
            *value = f(*value);
        }
        Self(out)
    }

    #[inline(always)]
    fn zip(self, other: Self, f: impl Fn(f32, f32) -> f32) -> Self {
        let mut out = self.0;
        for (value, other) in out.iter_mut().zip(other.0) {
            *value = f(*value, other);
        }
        Self(out)
    }

    #[inline(always)]
    fn compare(self, other: Self, holds: impl Fn(f32, f32) -> bool) -> WideMask<N> {
        let mut out = [0; N];
        for (mask, (mine, theirs)) in out.iter_mut().zip(self.0.into_iter().zip(other.0)) {
            *mask = if holds(mine, theirs) { u32::MAX } else { 0 };
        }
        WideMask(out)
    }
}

impl<const N: usize> WideMask<N> {
    #[inline(always)]
    fn zip(self, other: Self, f: impl Fn(u32, u32) -> u32) -> Self {
        let mut out = self.0;
        for (value, other) in out.iter_mut().zip(other.0) {
            *value = f(*value, other);
        }
        Self(out)
    }
}

/// The element-wise operator `$op` of `Wide`.
macro_rules! wide_operator {
    ($trait:ident, $method:ident, $op:tt) => {
        impl<const N: usize> $trait for Wide<N> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: Self) -> Self {
                self.zip(other, |a, b| a $op b)
            }
        }
    };
}
wide_operator!(Add, add, +);
wide_operator!(Sub, sub, -);
wide_operator!(Mul, mul, *);
wide_operator!(Div, div, /);

impl<const N: usize> AddAssign for Wide<N> {
    #[inline(always)]
    fn add_assign(&mut self, other: Self) {
        *self = *self + other;
    }
}

impl<const N: usize> Neg for Wide<N> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        self.map(|value| -value)
    }
}

impl<const N: usize> Lanes for Wide<N> {
    type Mask = WideMask<N>;
    const COUNT: usize = {
        assert!(N <= MOST_LANES);
        N
    };
    const ZERO: Self = Self([0.0; N]);
    const ONE: Self = Self([1.0; N]);

    #[inline(always)]
    fn splat(value: f32) -> Self {
        Self([value; N])
    }
    #[inline(always)]
    fn from_fn(mut value: impl FnMut(usize) -> f32) -> Self {
        // A loop rather than `array::from_fn`, whose closure calls were left as calls.
        let mut out = [0.0; N];
        for (lane, out) in out.iter_mut().enumerate() {
            *out = value(lane);
        }
        Self(out)
    }
    #[inline(always)]
    fn lane(self, lane: usize) -> f32 {
        self.0[lane]
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        self.map(f32::sqrt)
    }
    #[inline(always)]
    fn recip(self) -> Self {
        self.map(|value| 1.0 / value)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        self.map(f32::abs)
    }
    #[inline(always)]
    fn cmpeq(self, other: Self) -> WideMask<N> {
        self.compare(other, |a, b| a == b)
    }
    #[inline(always)]
    fn cmplt(self, other: Self) -> WideMask<N> {
        self.compare(other, |a, b| a < b)
    }
    #[inline(always)]
    fn cmple(self, other: Self) -> WideMask<N> {
        self.compare(other, |a, b| a <= b)
    }
    #[inline(always)]
    fn cmpgt(self, other: Self) -> WideMask<N> {
        self.compare(other, |a, b| a > b)
    }
    #[inline(always)]
    fn cmpge(self, other: Self) -> WideMask<N> {
        self.compare(other, |a, b| a >= b)
    }
    #[inline(always)]
    fn is_finite_mask(self) -> WideMask<N> {
        self.map(f32::abs).cmplt(Self::splat(f32::INFINITY))
    }
    #[inline(always)]
    fn is_normal_mask(self) -> WideMask<N> {
        // On the bits: the two comparisons of `Vec4`'s were made one scalar test a lane. A normal
        // positive `f32`'s bits are from `MIN_POSITIVE`'s up to, not with, infinity's; a negative
        // one's (sign bit set) and a NaN's are above.
        let mut out = [0; N];
        for (mask, value) in out.iter_mut().zip(self.0) {
            let above_least = value.to_bits().wrapping_sub(f32::MIN_POSITIVE.to_bits());
            *mask = if above_least < f32::INFINITY.to_bits() - f32::MIN_POSITIVE.to_bits() {
                u32::MAX
            } else {
                0
            };
        }
        WideMask(out)
    }
    #[inline(always)]
    fn select(mask: WideMask<N>, if_true: Self, if_false: Self) -> Self {
        let mut out = if_false.0;
        for ((value, chosen), mask) in out.iter_mut().zip(if_true.0).zip(mask.0) {
            *value = f32::from_bits((chosen.to_bits() & mask) | (value.to_bits() & !mask));
        }
        Self(out)
    }
    #[inline(always)]
    fn run_apart<W: ApartOn<Self>>(work: W) -> W::Output {
        #[cfg(target_arch = "x86_64")]
        let work = match x86::apart_on_wider_lanes(work) {
            Ok(output) => return output,
            Err(work) => work,
        };
        apart(work)
    }
}

impl<const N: usize> BitAnd for WideMask<N> {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, other: Self) -> Self {
        self.zip(other, |a, b| a & b)
    }
}

impl<const N: usize> BitOr for WideMask<N> {
    type Output = Self;
    #[inline(always)]
    fn bitor(self, other: Self) -> Self {
        self.zip(other, |a, b| a | b)
    }
}

impl<const N: usize> BitAndAssign for WideMask<N> {
    #[inline(always)]
    fn bitand_assign(&mut self, other: Self) {
        *self = *self & other;
    }
}

impl<const N: usize> BitOrAssign for WideMask<N> {
    #[inline(always)]
    fn bitor_assign(&mut self, other: Self) {
        *self = *self | other;
    }
}

impl<const N: usize> Not for WideMask<N> {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        self.zip(self, |a, _| !a)
    }
}

impl<const N: usize> LaneMask for WideMask<N> {
    #[inline(always)]
    fn splat(value: bool) -> Self {
        Self([if value { u32::MAX } else { 0 }; N])
    }
    #[inline(always)]
    fn from_fn(mut value: impl FnMut(usize) -> bool) -> Self {
        let mut out = [0; N];
        for (lane, out) in out.iter_mut().enumerate() {
            *out = if value(lane) { u32::MAX } else { 0 };
        }
        Self(out)
    }
    #[inline(always)]
    fn bitmask(self) -> u32 {
        self.0
            .iter()
            .enumerate()
            .fold(0, |bits, (lane, mask)| bits | (mask >> 31) << lane)
    }
}

/// Work done on lanes of a width chosen at run time: see [`on_widest_lanes`].
pub(crate) trait OnLanes {
    type Output;

    /// Does the work on lanes `L`. Implementations mark it `#[inline(always)]`, so that the code
    /// is compiled for the vector instructions of the caller that picked `L`.
    fn run<L: Lanes>(self) -> Self::Output;
}

/// Work on lanes `L` done in a function of its own ([`Lanes::run_apart`]): a large piece of the
/// lanes' code, such as one of several variants of a loop, so that the compiler optimises it on
/// its own. Inlined into one function, the flocking scan's eight variants were optimised worse
/// together (a change to the variant with fields of view made the default one's step 2.5 times
/// slower).
pub(crate) trait ApartOn<L: Lanes> {
    type Output;

    /// Does the work. Implementations mark it `#[inline(always)]`, so that it is compiled into
    /// the function [`Lanes::run_apart`] gives it.
    fn run(self) -> Self::Output;
}

/// `work`, in a function of its own.
#[inline(never)]
fn apart<L: Lanes, W: ApartOn<L>>(work: W) -> W::Output {
    work.run()
}

/// Runs `work` on the widest lanes the machine has: 16 with AVX-512, 8 with AVX2, else four
/// (`Vec4`: SSE2 on x86, NEON, wasm's simd128). The width is found at run time on x86, so a build
/// for the default target still uses the wider registers of the machine it runs on; the result
/// has the same bits at every width.
#[inline]
pub(crate) fn on_widest_lanes<W: OnLanes>(work: W) -> W::Output {
    #[cfg(target_arch = "x86_64")]
    let work = match x86::on_wider_lanes(work) {
        Ok(output) => return output,
        Err(work) => work,
    };
    work.run::<Vec4>()
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    //! The entries to the wider lanes, compiled for their instructions: the crate's only unsafe
    //! code, calls to them once the CPU is known to support those instructions.
    use super::{ApartOn, OnLanes, Wide};

    #[target_feature(enable = "avx2")]
    fn avx2<W: OnLanes>(work: W) -> W::Output {
        work.run::<Wide<8>>()
    }

    #[target_feature(enable = "avx512f")]
    fn avx512<W: OnLanes>(work: W) -> W::Output {
        work.run::<Wide<16>>()
    }

    #[target_feature(enable = "avx2")]
    #[inline(never)]
    fn avx2_apart<const N: usize, W: ApartOn<Wide<N>>>(work: W) -> W::Output {
        work.run()
    }

    #[target_feature(enable = "avx512f")]
    #[inline(never)]
    fn avx512_apart<const N: usize, W: ApartOn<Wide<N>>>(work: W) -> W::Output {
        work.run()
    }

    /// `work` on 16 lanes with AVX-512F or on 8 with AVX2, in a function of its own compiled for
    /// those instructions; given back on other widths or when the CPU lacks them (as in tests of
    /// the wider lanes on any machine).
    #[inline(always)]
    pub(super) fn apart_on_wider_lanes<const N: usize, W: ApartOn<Wide<N>>>(
        work: W,
    ) -> Result<W::Output, W> {
        if N == 16 && std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F, checked just above.
            Ok(unsafe { avx512_apart(work) })
        } else if N == 8 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            Ok(unsafe { avx2_apart(work) })
        } else {
            Err(work)
        }
    }

    /// `work` done on 16 or 8 lanes, or given back when the CPU has neither AVX-512F nor AVX2.
    #[inline]
    pub(super) fn on_wider_lanes<W: OnLanes>(work: W) -> Result<W::Output, W> {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F, checked just above.
            Ok(unsafe { avx512(work) })
        } else if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above.
            Ok(unsafe { avx2(work) })
        } else {
            Err(work)
        }
    }
}
