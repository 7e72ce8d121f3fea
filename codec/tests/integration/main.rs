//! The codec's integration tests, one binary: hostile files, EXIF
//! orientation and real photos' quirks, over the images `support` makes.

mod support;

mod hostile;
mod orientation;
mod photos;
