import CRJContext

/// The original RJIterator API in Swift: an untyped generator whose body calls the global
/// ``rj_yield(_:)``.
///
/// Behaviour kept from the original library:
/// - `next()` makes the pending `rj_yield(v)` return `v` itself; `next(x)` makes it return `x`;
///   the value of the first `next(x)` is ignored.
/// - After the body returns `r`, every `next` gives `RJResult(value: r, done: true)`.
/// - `rj_yield(anotherIterator)` delegates: each of its values, *including its return value*,
///   is yielded as an ordinary value.
///
/// `rj_yield` cannot throw, so a suspended `RJIterator` that is released cannot unwind its
/// body: its stack is dropped and what its frames hold is not released. ``Generator`` closes
/// its body on release and is the leak-free choice.
///
/// ```swift
/// func talk(_ name: Any?) -> Any? {
///     rj_yield("Hello \(name ?? ""), How are you?")
///     rj_yield("Over")
///     return "==talk done=="
/// }
/// let it = RJIterator(withFunc: talk, arg: "Jim")
/// it.next().value   // "Hello Jim, How are you?"
/// it.next().value   // "Over"
/// it.next()         // value "==talk done==", done true
/// ```
public final class RJIterator {
    /// What a `next` call hands the pending `rj_yield`: nothing (`next()`) or a value.
    enum NextInput {
        case plain
        case value(Any?)
    }

    let core: Generator<Any?, NextInput, Any?>

    /// Makes an iterator over `body`; nothing runs until the first `next`.
    ///
    /// ```swift
    /// let it = RJIterator { rj_yield(1); return 2 }
    /// ```
    public init(_ body: @escaping () -> Any?) {
        core = Generator(checkedStackSize: 0) { _ in body() }
        // rj_yield cannot throw the exit signal: a released body is dropped, not unwound.
        core.releasePolicy = .abandon
        core.client = Unmanaged.passUnretained(self)
    }

    /// Makes an iterator that runs `withFunc(arg)`, like the original `initWithFunc:arg:`.
    ///
    /// ```swift
    /// let it = RJIterator(withFunc: { name in rj_yield("hi \(name!)"); return nil }, arg: "Ann")
    /// ```
    public convenience init(withFunc function: @escaping (Any?) -> Any?, arg: Any?) {
        self.init { function(arg) }
    }

    /// Resumes the body; the pending `rj_yield(v)` returns `v`.
    ///
    /// ```swift
    /// let r = it.next()   // r.value, r.done
    /// ```
    @discardableResult
    public func next() -> RJResult {
        step(.plain)
    }

    /// Resumes the body; the pending `rj_yield` returns `value` (ignored by the first call).
    ///
    /// ```swift
    /// let r = it.next("again")
    /// ```
    @discardableResult
    public func next(_ value: Any?) -> RJResult {
        step(.value(value))
    }

    private func step(_ input: NextInput) -> RJResult {
        do {
            switch try core.perform(.next(input)) {
            case .yielded(let value): return RJResult(value: value, done: false)
            case .returned(let value): return RJResult(value: value, done: true)
            }
        } catch {
            return RJResult(value: nil, error: error, done: false)
        }
    }
}

/// Suspends the ``RJIterator`` whose body is running on this thread and hands `value` to its
/// caller. Returns `value` itself when resumed with `next()`, or `x` when resumed with
/// `next(x)`. Yielding an `RJIterator` delegates to it: each of its values, including its
/// return value, is yielded in turn.
///
/// Outside any `RJIterator` body (a plain thread, or a ``Generator`` body) it returns `nil`
/// and does nothing.
///
/// ```swift
/// let it = RJIterator {
///     let cmd = rj_yield("ready") as? String   // "go" after it.next("go")
///     return cmd
/// }
/// ```
@discardableResult
public func rj_yield(_ value: Any?) -> Any? {
    guard let current = rj_coro_current(), let owner = rj_coro_owner(current) else { return nil }
    // Guaranteed, not retained: a strong reference on the suspended stack would outlive an
    // abandoned body and leak the iterator's core.
    return Unmanaged<_RJCoroutineHost>.fromOpaque(owner)._withUnsafeGuaranteedRef {
        channel in
        // Only an RJIterator's generator takes the seed's untyped values.
        guard channel.hasClient(ofType: RJIterator.self) else { return nil }
        // RJIterator is final: comparing the dynamic type is exact, and much cheaper than a cast
        // on every yield.
        if let object = value, ObjectIdentifier(type(of: object)) == ObjectIdentifier(RJIterator.self) {
            return delegate(to: object as! RJIterator, through: channel, current)
        }
        return resumeValue(
            channel.suspend(current, yielding: value, resumedWith: RJIterator.NextInput.self), yielded: value)
    }
}

private func resumeValue(_ signal: ResumeSignal<RJIterator.NextInput>, yielded: Any?) -> Any? {
    switch signal {
    case .value(.plain): return yielded
    case .value(.value(let input)): return input
    // Only Generator's throw/return/close send these; RJIterator has none of them.
    case .error, .close: return nil
    }
}

private func delegate(to inner: RJIterator, through channel: _RJCoroutineHost, _ current: OpaquePointer) -> Any? {
    var result = inner.next()
    while true {
        let value = result.value
        let signal = channel.suspend(current, yielding: value, resumedWith: RJIterator.NextInput.self)
        if result.done || result.error != nil {
            return resumeValue(signal, yielded: value)
        }
        switch signal {
        case .value(.plain): result = inner.next()
        case .value(.value(let input)): result = inner.next(input)
        case .error, .close: return nil
        }
    }
}
