//! fzy-style subsequence scoring of a path against query terms, with extra weight for the file
//! name: what you type after `@` is usually (part of) a file name.

/// Per-character rewards and penalties (fzy's scale: a consecutive match is worth 1).
const GAP_LEADING: f64 = -0.005;
const GAP_TRAILING: f64 = -0.005;
const GAP_INNER: f64 = -0.01;
const CONSECUTIVE: f64 = 1.0;
const BONUS_SLASH: f64 = 0.9;
const BONUS_WORD: f64 = 0.8;
const BONUS_CAMEL: f64 = 0.7;
const BONUS_DOT: f64 = 0.6;
/// Added to every query character matched inside the file name.
const BONUS_IN_NAME: f64 = 0.15;
/// Whole-term rewards: the term is the file name or its name without extension (`grep` for
/// `grep.ts` is as exact as typing gets), a prefix of it, or a whole directory name on the way.
const BONUS_EXACT_NAME: f64 = 2.0;
const BONUS_NAME_PREFIX: f64 = 1.0;
const BONUS_EXACT_DIR: f64 = 0.5;
/// Per directory level, so that among similar matches the shallower file wins.
const PENALTY_DEPTH: f64 = 0.05;
/// The alignment table is `term × path`; beyond this a path is scored as a bare subsequence match.
const MAX_SCORED_CHARS: usize = 1024;
const UNSCORABLE: f64 = -1.0e6;

pub(super) struct Query {
    terms: Vec<Vec<char>>,
    case_sensitive: bool,
}

impl Query {
    /// Space-separated terms must all match. Smart case: an uppercase letter anywhere in the query
    /// makes the whole query case-sensitive.
    pub fn parse(query: &str) -> Self {
        let case_sensitive = query.chars().any(char::is_uppercase);
        let terms =
            query.split_whitespace().map(|term| term.chars().map(|c| fold(c, case_sensitive)).collect()).collect();
        Self { terms, case_sensitive }
    }
}

fn fold(c: char, case_sensitive: bool) -> char {
    if case_sensitive {
        c
    } else if c.is_ascii() {
        c.to_ascii_lowercase()
    } else {
        c.to_lowercase().next().unwrap_or(c)
    }
}

/// Reusable buffers, one scorer per walker thread.
#[derive(Default)]
pub(super) struct Scorer {
    chars: Vec<char>,
    bonus: Vec<f64>,
    prev_d: Vec<f64>,
    prev_m: Vec<f64>,
    cur_d: Vec<f64>,
    cur_m: Vec<f64>,
}

impl Scorer {
    /// `None` when some term is not a subsequence of `path`. An empty query scores every path by
    /// depth alone, so the shallowest come first.
    pub fn score(&mut self, query: &Query, path: &str) -> Option<f64> {
        let depth = path.matches('/').count() as f64;
        if query.terms.is_empty() {
            return Some(-depth);
        }
        // Cheap rejection first: most paths do not contain the terms at all.
        if !query.terms.iter().all(|term| is_subsequence(term, path, query.case_sensitive)) {
            return None;
        }
        self.prepare(path, query.case_sensitive);
        if self.chars.len() > MAX_SCORED_CHARS {
            return Some(UNSCORABLE);
        }
        let name_start = self.chars.iter().rposition(|&c| c == '/').map_or(0, |i| i + 1);
        let mut total = -depth * PENALTY_DEPTH;
        for term in &query.terms {
            total += self.align(term, name_start) + whole_term_bonus(term, &self.chars, name_start);
        }
        Some(total)
    }

    fn prepare(&mut self, path: &str, case_sensitive: bool) {
        self.chars.clear();
        self.bonus.clear();
        let mut prev = '/';
        for c in path.chars() {
            self.chars.push(fold(c, case_sensitive));
            self.bonus.push(position_bonus(prev, c));
            prev = c;
        }
    }

    /// Best alignment of `term` in the path (fzy's dynamic programme): `d[j]` is the best score
    /// with the current term character matched exactly at `j`, `m[j]` the best with it matched
    /// at or before `j`. Rows are rolled since only scores, not positions, are needed.
    fn align(&mut self, term: &[char], name_start: usize) -> f64 {
        let len = self.chars.len();
        for row in [&mut self.prev_d, &mut self.prev_m, &mut self.cur_d, &mut self.cur_m] {
            row.clear();
            row.resize(len, f64::NEG_INFINITY);
        }
        for (i, &tc) in term.iter().enumerate() {
            let gap = if i + 1 == term.len() { GAP_TRAILING } else { GAP_INNER };
            let mut best = f64::NEG_INFINITY;
            for j in 0..len {
                if self.chars[j] == tc {
                    let in_name = if j >= name_start { BONUS_IN_NAME } else { 0.0 };
                    let score = if i == 0 {
                        j as f64 * GAP_LEADING + self.bonus[j]
                    } else if j > 0 {
                        (self.prev_m[j - 1] + self.bonus[j]).max(self.prev_d[j - 1] + CONSECUTIVE)
                    } else {
                        f64::NEG_INFINITY
                    } + in_name;
                    self.cur_d[j] = score;
                    best = score.max(best + gap);
                } else {
                    self.cur_d[j] = f64::NEG_INFINITY;
                    best += gap;
                }
                self.cur_m[j] = best;
            }
            std::mem::swap(&mut self.prev_d, &mut self.cur_d);
            std::mem::swap(&mut self.prev_m, &mut self.cur_m);
        }
        self.prev_m[len - 1]
    }
}

/// Word starts score: after a separator, at a camelCase hump, at the very start.
fn position_bonus(prev: char, c: char) -> f64 {
    match prev {
        '/' => BONUS_SLASH,
        '-' | '_' | ' ' => BONUS_WORD,
        '.' => BONUS_DOT,
        _ if prev.is_lowercase() && c.is_uppercase() => BONUS_CAMEL,
        _ => 0.0,
    }
}

fn whole_term_bonus(term: &[char], path: &[char], name_start: usize) -> f64 {
    let name = &path[name_start..];
    let stem = match name.iter().rposition(|&c| c == '.') {
        Some(dot) if dot > 0 => &name[..dot],
        _ => name,
    };
    if term == name || term == stem {
        BONUS_EXACT_NAME
    } else if name.starts_with(term) {
        BONUS_NAME_PREFIX
    } else if name_start > 0 && path[..name_start - 1].split(|&c| c == '/').any(|dir| dir == term) {
        BONUS_EXACT_DIR
    } else {
        0.0
    }
}

fn is_subsequence(term: &[char], path: &str, case_sensitive: bool) -> bool {
    let mut want = term.iter();
    let mut next = want.next();
    for c in path.chars() {
        match next {
            Some(&t) if t == fold(c, case_sensitive) => next = want.next(),
            Some(_) => {}
            None => break,
        }
    }
    next.is_none()
}
