//! Geometry the behaviours steer by: the spine of a path, and the shapes of obstacles (2D only,
//! in a file of their own).

pub mod path;
pub mod shapes;
