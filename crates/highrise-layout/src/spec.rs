//! What goes in: the methods to lay out, the knobs, and the errors.

/// One defined method, as the layout sees it.
///
/// `id` is chosen by the caller (the viewer uses the session's method id) and must be unique
/// within one city. The package path uses `.` separators (`"main.game"` is the sub-package
/// `game` of `main`); the empty string is the default (root) package, whose classes stand
/// directly in the city's root district. Segments are taken verbatim, so `"a..b"` has an empty
/// middle segment.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MethodSpec {
    /// Caller-chosen identity of the method; unique within one city.
    pub id: u32,
    /// Package path with `.` separators; `""` is the default package.
    pub package: String,
    /// Simple class name (no package prefix).
    pub class: String,
    /// Method name.
    pub method: String,
    /// Signature, distinguishing overloads; `None` sorts before any signature.
    pub signature: Option<String>,
}

impl MethodSpec {
    /// A method without a signature.
    pub fn new(
        id: u32,
        package: impl Into<String>,
        class: impl Into<String>,
        method: impl Into<String>,
    ) -> Self {
        Self {
            id,
            package: package.into(),
            class: class.into(),
            method: method.into(),
            signature: None,
        }
    }

    /// The same method with a signature (for overloads).
    pub fn with_signature(mut self, signature: impl Into<String>) -> Self {
        self.signature = Some(signature.into());
        self
    }

    pub(crate) fn as_ref(&self) -> MethodRef<'_> {
        MethodRef {
            id: self.id,
            package: &self.package,
            class: &self.class,
            method: &self.method,
            signature: self.signature.as_deref(),
        }
    }
}

/// Borrowed view of a [`MethodSpec`]; the full layout works on these so that `tidy` can feed
/// it from the layout's own name arena.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MethodRef<'a> {
    pub id: u32,
    pub package: &'a str,
    pub class: &'a str,
    pub method: &'a str,
    pub signature: Option<&'a str>,
}

/// Anything the full layout can read a method from without copying it.
pub(crate) trait MethodLike {
    fn view(&self) -> MethodRef<'_>;
}

impl MethodLike for MethodSpec {
    #[inline]
    fn view(&self) -> MethodRef<'_> {
        self.as_ref()
    }
}

impl MethodLike for MethodRef<'_> {
    #[inline]
    fn view(&self) -> MethodRef<'_> {
        *self
    }
}

/// Everything that can go wrong when laying out or updating a city.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// Two methods (or an insert of an existing method) share one id.
    #[error("method id {0} is already in the city")]
    DuplicateMethodId(u32),
    /// `set_heights` got a slice whose length is not the number of buildings.
    #[error("got {got} heights for a city of {expected} buildings")]
    HeightsLength {
        /// Number of buildings in the city.
        expected: usize,
        /// Length of the slice passed in.
        got: usize,
    },
    /// A building index past the end of [`crate::CityLayout::buildings`].
    #[error("building index {index} is out of range (the city has {len} buildings)")]
    BuildingIndex {
        /// The index passed in.
        index: u32,
        /// Number of buildings.
        len: usize,
    },
}

/// The knobs of the layout. Lengths on the grid are in plots (1 plot = 1 world unit); heights
/// are in world units. [`LayoutConfig::default`] is what the viewer uses.
#[derive(Debug, Clone, PartialEq)]
pub struct LayoutConfig {
    /// Width of the street between neighbouring blocks or districts, plots (at least 1).
    pub street_plots: u32,
    /// Margin between a district's edge and its content, plots (at least 1).
    pub district_padding_plots: u32,
    /// Gap between a building's footprint and its plot's edge on every side, world units.
    pub building_inset_wu: f32,
    /// Thickness of one district slab, world units: a district at depth `d` spans
    /// `[d, d + 1] * district_slab_wu`.
    pub district_slab_wu: f32,
    /// Thickness of a block slab, world units; blocks stand on their district's slab and
    /// buildings stand on their block.
    pub block_slab_wu: f32,
    /// Spare plots a full layout reserves in every block for methods defined later, as a
    /// fraction of the block's method count (0.0 = none beyond what rounding to a near-square
    /// grid leaves).
    pub block_reserve_fraction: f32,
}

impl Default for LayoutConfig {
    fn default() -> Self {
        Self {
            street_plots: 1,
            district_padding_plots: 1,
            building_inset_wu: 0.1,
            district_slab_wu: 0.3,
            block_slab_wu: 0.15,
            block_reserve_fraction: 0.0,
        }
    }
}

impl LayoutConfig {
    pub(crate) fn street(&self) -> i32 {
        i32::try_from(self.street_plots.max(1)).unwrap_or(i32::MAX / 4)
    }

    pub(crate) fn pad(&self) -> i32 {
        i32::try_from(self.district_padding_plots.max(1)).unwrap_or(i32::MAX / 4)
    }

    pub(crate) fn district_base_wu(&self, depth: u16) -> f32 {
        f32::from(depth) * self.district_slab_wu
    }

    pub(crate) fn block_base_wu(&self, district_depth: u16) -> f32 {
        self.district_base_wu(district_depth) + self.district_slab_wu
    }

    pub(crate) fn building_base_wu(&self, district_depth: u16) -> f32 {
        self.block_base_wu(district_depth) + self.block_slab_wu
    }
}
