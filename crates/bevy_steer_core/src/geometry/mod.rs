//! Geometry the behaviours steer by: the spine of a path, and the shapes of obstacles (one file
//! per dimension).

pub mod path;
pub mod shapes;
