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
    let channel: SeedChannel
    /// The generator only switches: values cross in `channel`.
    let core: Generator<Void, Void, Void>

    /// Makes an iterator over `body`; nothing runs until the first `next`.
    ///
    /// ```swift
    /// let it = RJIterator { rj_yield(1); return 2 }
    /// ```
    public init(_ body: @escaping () -> Any?) {
        let channel = SeedChannel()
        self.channel = channel
        core = Generator(checkedStackSize: 0) { _ in channel.returned = body() }
        // rj_yield cannot throw the exit signal: a released body is dropped, not unwound.
        core.releasePolicy = .abandon
        // Unretained: the iterator owns both the channel and the generator.
        core.client = Unmanaged.passUnretained(channel)
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
        channel.input = nil
        return step()
    }

    /// Resumes the body; the pending `rj_yield` returns `value` (ignored by the first call).
    ///
    /// ```swift
    /// let r = it.next("again")
    /// ```
    @discardableResult
    public func next(_ value: consuming Any?) -> RJResult {
        // The body reads the value where it lies, in this frame, while this call waits. Taken
        // (`consuming`) into a local and passed `inout`: no copy, and no unspecialised generic
        // code, which `withUnsafePointer(to:)` of a borrowed `Any?` goes through.
        var input = consume value
        return withUnsafeMutablePointer(to: &input) { input in
            channel.input = UnsafePointer(input)
            return step()
        }
    }

    private func step() -> RJResult {
        do {
            switch try core.next() {
            // The yielded value lies in the suspended body's frame: one copy, into the result.
            case .yielded: return RJResult(value: channel.output.unsafelyUnwrapped.pointee, done: false)
            case .returned: return RJResult(value: channel.returned, done: true)
            }
        } catch {
            return RJResult(value: nil, error: error, done: false)
        }
    }
}

/// Where an ``RJIterator``'s values cross between `next` and `rj_yield`: as pointers to where
/// each value already lies (the argument of `next`, in the resumer's frame; the argument of
/// `rj_yield`, in the suspended body's frame), each valid while its frame waits in the switch.
/// The other side copies the value once, where it needs it. Every copy, move, nil test or nil
/// store of an `Any?` is a call into the runtime; wrapping the values in the generic
/// generator's enums cost a dozen of them per round trip.
///
/// The generator's `client`, so that `rj_yield` finds it through the running coroutine.
/// Touched only by the thread that holds the generator's `running` state, hence unchecked.
final class SeedChannel {
    /// What the pending `rj_yield` returns, set by `next(x)`; `nil` for `next()`, whose
    /// pending `rj_yield(v)` returns `v` itself.
    @exclusivity(unchecked) var input: UnsafePointer<Any?>?
    /// What the body yielded last.
    @exclusivity(unchecked) var output: UnsafePointer<Any?>?
    /// The body's return value, reported by every `next` after the end.
    @exclusivity(unchecked) var returned: Any?

    /// The body's side of `rj_yield`: hands `value` out, suspends, and returns what the
    /// resuming `next` gave. Runs on the body's stack (`current`, owned by `host`). The host
    /// travels unmanaged: an unoptimised build would keep a strong copy of a reference
    /// argument in this frame, which outlives an abandoned body and leaks the generator.
    static func yield(
        _ value: consuming Any?, _ channel: Unmanaged<SeedChannel>, _ host: Unmanaged<_RJCoroutineHost>,
        _ current: OpaquePointer
    ) -> Any? {
        var yielded = consume value
        // What the resuming `next` gave: nil for `next()`, which gives the yielded value back.
        let resumedWith: UnsafePointer<Any?>?? = withUnsafeMutablePointer(to: &yielded) { yielded in
            channel._withUnsafeGuaranteedRef { $0.output = UnsafePointer(yielded) }
            switch host._withUnsafeGuaranteedRef({ $0.suspend(current, yielding: (), resumedWith: Void.self) }) {
            case .value: return .some(channel._withUnsafeGuaranteedRef { $0.input })
            // Only Generator's throw/return/close send these; RJIterator has none of them.
            case .error, .close: return .none
            }
        }
        switch resumedWith {
        case .some(.some(let input)): return input.pointee
        case .some(.none): return yielded  // moved, not copied
        case .none: return nil
        }
    }

    /// `rj_yield(inner)`: yields each of `inner`'s values, its return value included, passing
    /// the inputs of `next` on to it.
    func delegate(to inner: RJIterator, _ host: Unmanaged<_RJCoroutineHost>, _ current: OpaquePointer) -> Any? {
        var result = inner.next()
        while true {
            let resumedWith = SeedChannel.yield(result.value, Unmanaged.passUnretained(self), host, current)
            if result.done || result.error != nil { return resumedWith }
            result = input == nil ? inner.next() : inner.next(resumedWith)
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
public func rj_yield(_ value: consuming Any?) -> Any? {
    guard let current = rj_coro_current(), let owner = rj_coro_owner(current) else { return nil }
    // Unmanaged, not retained: a strong reference on the suspended stack would outlive an
    // abandoned body and leak the generator.
    let host = Unmanaged<_RJCoroutineHost>.fromOpaque(owner)
    // Only an RJIterator's generator takes the seed's untyped values.
    guard let client = host._withUnsafeGuaranteedRef({ $0.hasClient(ofType: SeedChannel.self) ? $0.client : nil })
    else { return nil }
    // Never a strong local: the body's suspended frames must not keep the channel alive.
    let channel = Unmanaged<SeedChannel>.fromOpaque(client.toOpaque())
    if mayHoldAnIterator(value), let inner = copy value as? RJIterator {
        return channel._withUnsafeGuaranteedRef { $0.delegate(to: inner, host, current) }
    }
    return SeedChannel.yield(value, channel, host, current)
}

/// Whether `value` may hold an ``RJIterator``, read from the existential's type metadata
/// without copying the value (every copy of an `Any?` is a call into the runtime): an `Any` is
/// three words of value and one of type metadata (0 for nil). Values of struct, enum,
/// optional, tuple or function type (an Int, a String...) cannot; only those get past
/// without the real cast.
@inline(__always)
private func mayHoldAnIterator(_ value: borrowing Any?) -> Bool {
    let metadata = unsafe_anyMetadata(value)
    guard let metadata else { return false }
    if metadata == unsafeBitCast(RJIterator.self, to: UnsafeRawPointer.self) { return true }
    let kind = metadata.load(as: UInt.self)
    return !((0x200...0x202).contains(kind) || kind == 0x301 || kind == 0x302)
}

/// The type metadata word of an `Any?` (nil for nil).
@inline(__always)
private func unsafe_anyMetadata(_ value: borrowing Any?) -> UnsafeRawPointer? {
    withUnsafePointer(to: value) { pointer in
        UnsafeRawPointer(pointer).load(fromByteOffset: 3 * MemoryLayout<UInt>.size, as: UnsafeRawPointer?.self)
    }
}
