//! A fixed-size unsigned big integer: just what exact decimal-to-binary (`float_parse`) and
//! binary-to-decimal (`number_format`) conversion need, on the stack and without allocating.

/// Limbs in a `Big`: room for 2700 bits, above every intermediate of `Decimal::generate` (below
/// 2^1160) and of `crate::json::float_parse` (below 2^2660, for 800 kept digits).
const BIG_LIMBS: usize = 85;

/// An unsigned integer of up to `BIG_LIMBS` 32-bit limbs (little-endian). Limbs from `len` on
/// are zero.
#[derive(Clone)]
pub(crate) struct Big {
    limbs: [u32; BIG_LIMBS],
    len: usize,
}

impl Big {
    pub fn from_u64(n: u64) -> Big {
        let mut big = Big {
            limbs: [0; BIG_LIMBS],
            len: 2,
        };
        for (limb, part) in big.limbs.iter_mut().zip([n as u32, (n >> 32) as u32]) {
            *limb = part;
        }
        big.trim();
        big
    }

    fn trim(&mut self) {
        while self.len > 0 && self.limbs.get(self.len - 1) == Some(&0) {
            self.len -= 1;
        }
    }

    fn used(&self) -> &[u32] {
        self.limbs.get(..self.len).unwrap_or_default()
    }

    pub fn is_zero(&self) -> bool {
        self.len == 0
    }

    /// The number of significant bits.
    pub fn bit_len(&self) -> u32 {
        let top = self.used().last().map_or(0, |limb| limb.leading_zeros());
        self.len as u32 * 32 - top
    }

    /// `self * factor + addend`.
    #[inline(never)]
    pub fn mul_add(&mut self, factor: u32, addend: u32) {
        let mut carry = u64::from(addend);
        for limb in self.limbs.iter_mut().take(self.len) {
            let v = u64::from(*limb) * u64::from(factor) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            if let Some(limb) = self.limbs.get_mut(self.len) {
                *limb = carry as u32;
                self.len += 1;
            }
        }
    }

    /// Multiplies by `base^n`, a limb-sized power at a time.
    #[inline(never)]
    pub fn mul_pow(&mut self, base: u32, mut n: u32) {
        let (mut chunk, mut step) = (base, 1);
        while let Some(next) = chunk.checked_mul(base) {
            chunk = next;
            step += 1;
        }
        while n >= step {
            self.mul_add(chunk, 0);
            n -= step;
        }
        self.mul_add(base.pow(n), 0);
    }

    /// Multiplies by 2^bits.
    #[inline(never)]
    pub fn shl(&mut self, bits: u32) {
        let words = (bits / 32) as usize;
        let bits = bits % 32;
        let old = self.limbs;
        let mut carry = 0u32;
        let mut len = 0;
        for (i, limb) in self.limbs.iter_mut().enumerate().take(self.len + words + 1) {
            let src = i
                .checked_sub(words)
                .and_then(|j| old.get(j))
                .copied()
                .unwrap_or(0);
            *limb = if bits == 0 {
                src
            } else {
                (src << bits) | carry
            };
            carry = if bits == 0 { 0 } else { src >> (32 - bits) };
            if *limb != 0 {
                len = i + 1;
            }
        }
        self.len = len;
    }

    /// `self + other`.
    #[inline(never)]
    pub fn plus(&self, other: &Big) -> Big {
        let mut sum = self.clone();
        let mut carry = 0u64;
        let len = self.len.max(other.len);
        for (i, limb) in sum.limbs.iter_mut().enumerate().take(len + 1) {
            let v = u64::from(*limb) + u64::from(other.limbs.get(i).copied().unwrap_or(0)) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        sum.len = (len + 1).min(sum.limbs.len());
        sum.trim();
        sum
    }

    /// Subtracts `other`, which is not larger.
    #[inline(never)]
    pub fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.limbs.iter_mut().enumerate().take(self.len) {
            let v = i64::from(*limb) - i64::from(other.limbs.get(i).copied().unwrap_or(0)) - borrow;
            *limb = v as u32;
            borrow = i64::from(v < 0);
        }
        self.trim();
    }

    #[inline(never)]
    pub fn cmp(&self, other: &Big) -> std::cmp::Ordering {
        self.len
            .cmp(&other.len)
            .then_with(|| self.used().iter().rev().cmp(other.used().iter().rev()))
    }
}
