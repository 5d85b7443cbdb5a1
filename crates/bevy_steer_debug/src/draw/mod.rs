//! The gizmo primitives the drawing systems use, one file per dimension: lines, arrows, circles
//! (in 3D, spheres) and obstacle outlines.

#[cfg(feature = "2d")]
mod dim2;
#[cfg(feature = "3d")]
mod dim3;

#[cfg(feature = "2d")]
pub(crate) use dim2::*;
#[cfg(feature = "3d")]
pub(crate) use dim3::*;
