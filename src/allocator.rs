//! The allocator of the `mcpgen` binary (and of the examples that time its stages).

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// mimalloc, asked for an alignment only where its plain allocation does not give it.
///
/// `mimalloc::MiMalloc` calls the aligned entry points for every allocation; their extra checks
/// were 2 % of the instructions of generating Stripe's crate (callgrind, one thread: 1,972 M →
/// 1,936 M), which makes millions of small allocations. A block from `mi_malloc` is aligned to
/// 16 bytes, or to 8 when smaller than 16 (mimalloc's `MI_MAX_ALIGN_SIZE`), and a layout's size
/// is a multiple of its alignment: any alignment up to 16 is met. The standard library's `System`
/// allocator makes the same choice.
pub struct MiMalloc;

/// The alignment every block of `mi_malloc` and `mi_realloc` has (see [`MiMalloc`]).
const PLAIN_ALIGN: usize = 16;

/// Whether a plain block of `size` bytes has the alignment `align`.
fn plain_fits(align: usize, size: usize) -> bool {
    align <= PLAIN_ALIGN && align <= size
}

// SAFETY: each method forwards to the mimalloc function for its job, with the layout's size and,
// where a plain block might not have it, its alignment; `mi_free` frees blocks of either kind.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `GlobalAlloc::alloc`; mimalloc returns null or a block of the size asked.
        unsafe {
            if plain_fits(layout.align(), layout.size()) {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as above.
        unsafe {
            if plain_fits(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator.
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`; the new block keeps its alignment.
        unsafe {
            if plain_fits(layout.align(), new_size) {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every size from 1 to 300 bytes and every alignment from 1 to 4096 have that
    /// alignment, zeroed ones are zero, and a block grown or shrunk keeps its bytes and its
    /// alignment.
    #[test]
    fn every_block_has_its_layouts_alignment_and_keeps_its_bytes() {
        let allocator = MiMalloc;
        for align in (0..=12).map(|shift| 1usize << shift) {
            for size in (1..=300).filter(|size| size % align == 0 || align > *size) {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: `layout` has a non-zero size; each block is freed with its layout.
                unsafe {
                    let block = allocator.alloc(layout);
                    assert!(!block.is_null());
                    assert_eq!(block as usize % align, 0, "size {size}, align {align}");
                    for i in 0..size {
                        *block.add(i) = i as u8;
                    }
                    for new_size in [1, size / 2 + 1, size * 3] {
                        let grown = allocator.realloc(
                            block_copy(&allocator, block, layout),
                            layout,
                            new_size,
                        );
                        assert_eq!(
                            grown as usize % align,
                            0,
                            "realloc to {new_size}, align {align}"
                        );
                        for i in 0..size.min(new_size) {
                            assert_eq!(*grown.add(i), i as u8);
                        }
                        allocator.dealloc(grown, Layout::from_size_align(new_size, align).unwrap());
                    }
                    allocator.dealloc(block, layout);
                    let zeroed = allocator.alloc_zeroed(layout);
                    assert_eq!(zeroed as usize % align, 0);
                    assert!((0..size).all(|i| *zeroed.add(i) == 0));
                    allocator.dealloc(zeroed, layout);
                }
            }
        }
    }

    /// A new block of `layout` holding `block`'s bytes.
    ///
    /// # Safety
    /// `block` is a live block of `layout`.
    unsafe fn block_copy(allocator: &MiMalloc, block: *mut u8, layout: Layout) -> *mut u8 {
        // SAFETY: as the caller promises; the copy is a fresh block of the same layout.
        unsafe {
            let copy = allocator.alloc(layout);
            std::ptr::copy_nonoverlapping(block, copy, layout.size());
            copy
        }
    }
}
