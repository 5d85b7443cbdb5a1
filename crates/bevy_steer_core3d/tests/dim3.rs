//! 3D tests.
