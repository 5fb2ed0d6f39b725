/// Operators that combine several promises or make one from a callback, as functions of
/// their own: `Promises.all`, `Promises.any`, `Promises.race`, `Promises.retry`,
/// `Promises.wrap` (one file each, `Promises+All.swift`...).
///
/// ```swift
/// Promises.all([fetch(a), fetch(b)]).then { pages in print(pages.count) }
/// ```
public enum Promises {}
