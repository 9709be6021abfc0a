//! BVH (Biovision Hierarchy) motion files: a joint hierarchy with offsets and per-joint channel
//! lists, then one line of channel values per frame.
//!
//! Conventions (the de-facto standard every mocap library writes):
//! * a joint's local transform is `T(offset + position channels) · R`, where `R` multiplies the
//!   rotation channels **in the order listed** (`Zrotation Yrotation Xrotation` is `Rz·Ry·Rx`),
//!   angles in degrees; any order and any subset of the six channels is accepted;
//! * `End Site` blocks become joints without channels named `PARENT_End`;
//! * the file's frame is the clip's own (BVH is +Y up by convention); units are whatever the file
//!   uses, so the retargeter only ever uses ratios of lengths.
//!
//! Every error names the file and the line. Sizes are bounded so a hostile file cannot make the
//! reader allocate without limit.

use std::path::{Path, PathBuf};

use nalgebra::{Isometry3, Translation3, UnitQuaternion};

use crate::geom::V3;

/// Most joints a clip may have (mocap skeletons have tens; this is far above any real one).
pub const MAX_JOINTS: usize = 4096;
/// Most frames a clip may have (an hour at 120 fps).
pub const MAX_FRAMES: usize = 432_000;

/// Why a BVH file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BvhError {
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The text is not valid BVH.
    #[error("{path}:{line}: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// One channel of a joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// Translation along an axis (0 = X, 1 = Y, 2 = Z), file units.
    Position(usize),
    /// Rotation about an axis (0 = X, 1 = Y, 2 = Z), degrees.
    Rotation(usize),
}

/// A joint of the hierarchy (file frame).
#[derive(Clone, Debug, PartialEq)]
pub struct BvhJoint {
    /// Joint name (`PARENT_End` for an End Site).
    pub name: String,
    /// Parent index (parents come before children).
    pub parent: Option<usize>,
    /// Offset from the parent joint, file frame and units.
    pub offset: [f64; 3],
    /// Channels in file order.
    pub channels: Vec<Channel>,
    /// Index of this joint's first channel within a frame's values.
    pub first_channel: usize,
    /// True for an End Site.
    pub end_site: bool,
}

/// A parsed BVH clip.
#[derive(Clone, Debug, PartialEq)]
pub struct Bvh {
    /// Joints, parent-first.
    pub joints: Vec<BvhJoint>,
    /// Seconds per frame.
    pub frame_time_s: f64,
    /// Channel values, one row per frame (`channel_count` values each).
    pub frames: Vec<Vec<f64>>,
}

/// Read a BVH file.
pub fn read(path: &Path) -> Result<Bvh, BvhError> {
    let text = std::fs::read_to_string(path).map_err(|source| BvhError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse(&text, path)
}

/// Parse BVH text; `path` only names the file in errors.
pub fn parse(text: &str, path: &Path) -> Result<Bvh, BvhError> {
    let mut p = Parser {
        tokens: tokenize(text),
        pos: 0,
        path,
        joints: Vec::new(),
        channels: 0,
    };
    p.expect("HIERARCHY")?;
    p.expect("ROOT")?;
    p.joint(None)?;
    let (frames, frame_time_s) = p.motion()?;
    Ok(Bvh {
        joints: p.joints,
        frame_time_s,
        frames,
    })
}

impl Bvh {
    /// Number of values per frame.
    pub fn channel_count(&self) -> usize {
        self.joints.iter().map(|j| j.channels.len()).sum()
    }

    /// World transform of every joint at `frame` (file frame); `None` means the rest pose (all
    /// channels zero, i.e. the offsets alone).
    pub fn world(&self, frame: Option<usize>) -> Vec<Isometry3<f64>> {
        let values = frame.and_then(|f| self.frames.get(f));
        let mut world: Vec<Isometry3<f64>> = Vec::with_capacity(self.joints.len());
        for joint in &self.joints {
            let local = local_transform(joint, values.map(Vec::as_slice));
            let w = match joint.parent.and_then(|p| world.get(p)) {
                Some(parent) => parent * local,
                None => local,
            };
            world.push(w);
        }
        world
    }
}

/// `T(offset + position channels) · R(rotation channels in listed order)`.
fn local_transform(joint: &BvhJoint, values: Option<&[f64]>) -> Isometry3<f64> {
    let mut t = V3::from(joint.offset);
    let mut r = UnitQuaternion::identity();
    for (k, ch) in joint.channels.iter().enumerate() {
        let v = values
            .and_then(|v| v.get(joint.first_channel + k))
            .copied()
            .unwrap_or(0.0);
        match *ch {
            Channel::Position(a) => t[a] += v,
            Channel::Rotation(a) => {
                let axis = [V3::x_axis(), V3::y_axis(), V3::z_axis()][a];
                r *= UnitQuaternion::from_axis_angle(&axis, v.to_radians());
            }
        }
    }
    Isometry3::from_parts(Translation3::from(t), r)
}

struct Token<'a> {
    text: &'a str,
    line: usize,
}

fn tokenize(text: &str) -> Vec<Token<'_>> {
    text.lines()
        .enumerate()
        .flat_map(|(i, l)| {
            l.split_whitespace().map(move |t| Token {
                text: t,
                line: i + 1,
            })
        })
        .collect()
}

struct Parser<'a> {
    tokens: Vec<Token<'a>>,
    pos: usize,
    path: &'a Path,
    joints: Vec<BvhJoint>,
    channels: usize,
}

impl<'a> Parser<'a> {
    fn error(&self, message: impl Into<String>) -> BvhError {
        let line = self
            .tokens
            .get(self.pos)
            .or(self.tokens.last())
            .map_or(1, |t| t.line);
        BvhError::Syntax {
            path: self.path.to_owned(),
            line,
            message: message.into(),
        }
    }

    fn next(&mut self, what: &str) -> Result<&'a str, BvhError> {
        match self.tokens.get(self.pos) {
            Some(t) => {
                self.pos += 1;
                Ok(t.text)
            }
            None => Err(self.error(format!("unexpected end of file, expected {what}"))),
        }
    }

    fn expect(&mut self, word: &str) -> Result<(), BvhError> {
        let got = self.next(word)?;
        if got.eq_ignore_ascii_case(word) {
            Ok(())
        } else {
            self.pos -= 1;
            Err(self.error(format!("expected `{word}`, found `{got}`")))
        }
    }

    fn number(&mut self, what: &str) -> Result<f64, BvhError> {
        let t = self.next(what)?;
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => {
                self.pos -= 1;
                Err(self.error(format!("expected a finite number ({what}), found `{t}`")))
            }
        }
    }

    fn push(&mut self, joint: BvhJoint) -> Result<usize, BvhError> {
        if self.joints.len() >= MAX_JOINTS {
            return Err(self.error(format!("more than {MAX_JOINTS} joints")));
        }
        self.joints.push(joint);
        Ok(self.joints.len() - 1)
    }

    /// `NAME { OFFSET x y z CHANNELS n ... (JOINT ... | End Site { OFFSET x y z })* }`; the
    /// recursion depth is bounded by [`MAX_JOINTS`].
    fn joint(&mut self, parent: Option<usize>) -> Result<(), BvhError> {
        let name = self.next("a joint name")?.to_owned();
        if name == "{" {
            self.pos -= 1;
            return Err(self.error("joint without a name"));
        }
        self.expect("{")?;
        let offset = self.offset()?;
        let channels = self.channel_list()?;
        let first_channel = self.channels;
        self.channels += channels.len();
        let me = self.push(BvhJoint {
            name: name.clone(),
            parent,
            offset,
            channels,
            first_channel,
            end_site: false,
        })?;
        loop {
            match self.next("`JOINT`, `End Site` or `}`")? {
                "}" => return Ok(()),
                t if t.eq_ignore_ascii_case("JOINT") => self.joint(Some(me))?,
                t if t.eq_ignore_ascii_case("End") => {
                    self.expect("Site")?;
                    self.expect("{")?;
                    let offset = self.offset()?;
                    self.expect("}")?;
                    self.push(BvhJoint {
                        name: format!("{name}_End"),
                        parent: Some(me),
                        offset,
                        channels: Vec::new(),
                        first_channel: self.channels,
                        end_site: true,
                    })?;
                }
                t => {
                    self.pos -= 1;
                    return Err(self.error(format!(
                        "expected `JOINT`, `End Site` or `}}` in joint `{name}`, found `{t}`"
                    )));
                }
            }
        }
    }

    fn offset(&mut self) -> Result<[f64; 3], BvhError> {
        self.expect("OFFSET")?;
        Ok([
            self.number("offset x")?,
            self.number("offset y")?,
            self.number("offset z")?,
        ])
    }

    fn channel_list(&mut self) -> Result<Vec<Channel>, BvhError> {
        self.expect("CHANNELS")?;
        let n = self.number("channel count")?;
        if !(0.0..=6.0).contains(&n) || n.fract() != 0.0 {
            self.pos -= 1;
            return Err(self.error(format!("channel count must be 0 to 6, found {n}")));
        }
        (0..n as usize)
            .map(|_| {
                let t = self.next("a channel name")?;
                let lower = t.to_ascii_lowercase();
                let axis = match lower.chars().next() {
                    Some('x') => 0,
                    Some('y') => 1,
                    Some('z') => 2,
                    _ => usize::MAX,
                };
                match (axis, &lower[lower.len().min(1)..]) {
                    (a, "position") if a < 3 => Ok(Channel::Position(a)),
                    (a, "rotation") if a < 3 => Ok(Channel::Rotation(a)),
                    _ => {
                        self.pos -= 1;
                        Err(self.error(format!("unknown channel `{t}`")))
                    }
                }
            })
            .collect()
    }

    /// `MOTION Frames: n Frame Time: t` then n rows of values.
    fn motion(&mut self) -> Result<(Vec<Vec<f64>>, f64), BvhError> {
        self.expect("MOTION")?;
        self.expect("Frames:")?;
        let n = self.number("frame count")?;
        if n < 0.0 || n.fract() != 0.0 || n > MAX_FRAMES as f64 {
            self.pos -= 1;
            return Err(self.error(format!(
                "frame count must be a whole number up to {MAX_FRAMES}, found {n}"
            )));
        }
        self.expect("Frame")?;
        self.expect("Time:")?;
        let dt = self.number("frame time")?;
        if dt <= 0.0 {
            self.pos -= 1;
            return Err(self.error(format!("frame time must be positive, found {dt}")));
        }
        let n = n as usize;
        let mut frames = Vec::new();
        for f in 0..n {
            let row = (0..self.channels)
                .map(|_| self.number(&format!("a channel value of frame {}", f + 1)))
                .collect::<Result<Vec<f64>, _>>()?;
            frames.push(row);
        }
        if self.pos < self.tokens.len() {
            return Err(self.error(format!(
                "more values than {n} frames of {} channels",
                self.channels
            )));
        }
        Ok((frames, dt))
    }
}

#[cfg(test)]
#[path = "bvh_tests.rs"]
mod tests;
