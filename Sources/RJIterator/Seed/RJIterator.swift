import CRJContext

/// The original RJIterator API in Swift: an untyped generator whose body calls ``rj_yield(_:)``.
///
/// Semantics: docs/generators.md ("The seed API: `RJIterator`, `rj_yield`, `RJResult`").
/// `rj_yield` cannot throw, so a released suspended `RJIterator` cannot unwind its body: what
/// its frames hold is not released. ``Generator`` closes its body on release (leak-free).
///
/// ```swift
/// let it = RJIterator { rj_yield("Hello"); rj_yield("Over"); return "done" }
/// it.next().value   // "Hello"
/// it.next().value   // "Over"
/// it.next()         // value "done", done true
/// ```
public final class RJIterator {
    let channel: SeedChannel
    /// The generator: its yielded values cross as its own do; the inputs of `next(x)` and the
    /// body's return value cross in `channel`.
    let core: Generator<Any?, Void, Void>

    /// Makes an iterator over `body`; nothing runs until the first `next`.
    ///
    /// ```swift
    /// let it = RJIterator { rj_yield(1); return 2 }
    /// ```
    public init(file: StaticString = #fileID, line: UInt = #line, _ body: @escaping () -> Any?) {
        let channel = SeedChannel()
        self.channel = channel
        core = Generator(checkedStackSize: 0, kind: .rjIterator, file: file, line: line) { _ in channel.returned = body() }
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
    public convenience init(withFunc function: @escaping (Any?) -> Any?, arg: Any?, file: StaticString = #fileID,
                            line: UInt = #line) {
        self.init(file: file, line: line) { function(arg) }
    }

    /// Resumes the body; the pending `rj_yield(v)` returns `v`.
    ///
    /// ```swift
    /// let r = it.next()   // r.value, r.done
    /// ```
    @discardableResult
    public func next() -> RJResult {
        advance(nil, given: false)
    }

    /// Resumes the body; the pending `rj_yield` returns `value` (ignored by the first call).
    ///
    /// ```swift
    /// let r = it.next("again")
    /// ```
    @discardableResult
    public func next(_ value: consuming Any?) -> RJResult {
        advance(value, given: true)
    }

    /// One step: a `next` of the generator, as `Generator` performs it. The input is written into
    /// the channel only once the step holds the generator's `running` state, so a second thread
    /// (or the body itself) calling `next` meanwhile gets `alreadyRunning` and touches nothing.
    @inline(__always)
    private func advance(_ value: consuming Any?, given: Bool) -> RJResult {
        let step: GeneratorStep<Any?, Void>
        do {
            step = try core.perform(.next(()), handing: consume value) { starting, value in
                // The first `next`'s value is ignored, as in the original; a later one moves into the channel.
                if given, !starting {
                    channel.input.initialize(to: consume value)
                    channel.hasInput = true
                }
            }
        } catch {
            // Running (its own body, or another thread), or no stack: nothing was touched.
            return RJResult(value: nil, error: error, done: false)
        }
        switch consume step {
        case .yielded(let value): return RJResult(value: value, error: nil, done: false)
        // Written by the body before it completed, never again.
        case .returned: return RJResult(value: channel.returned, error: nil, done: true)
        }
    }
}

/// Where an ``RJIterator``'s values cross between `next` and `rj_yield` (docs/generators.md, "How
/// the untyped values cross"); the generator's `client`, found by `rj_yield` through the running
/// coroutine. Touched only by the thread holding the generator's `running` state, hence unchecked.
final class SeedChannel {
    /// What the pending `rj_yield` returns, put there by `next(x)`; initialised only while
    /// `hasInput`. `next()` leaves it empty: its pending `rj_yield(v)` returns `v` itself.
    let input = UnsafeMutablePointer<Any?>.allocate(capacity: 1)
    @exclusivity(unchecked) var hasInput = false
    /// Whether the `next` that resumed the last `rj_yield` gave a value (for delegation).
    @exclusivity(unchecked) var resumedWithInput = false
    /// The body's return value, reported by every `next` after the end.
    @exclusivity(unchecked) var returned: Any?

    deinit {
        // An input the body never took.
        if hasInput { AnyValue.destroy(input) }
        input.deallocate()
    }

    /// The body's side of `rj_yield`: hands `value` out, suspends, and returns what the
    /// resuming `next` gave. Runs on the body's stack (`current`, owned by `host`). The host
    /// travels unmanaged: an unoptimised build would keep a strong copy of a reference
    /// argument in this frame, which outlives an abandoned body and leaks the generator.
    static func yield(
        _ value: borrowing Any?, _ channel: Unmanaged<SeedChannel>, _ host: Unmanaged<_RJCoroutineHost>,
        _ current: OpaquePointer
    ) -> Any? {
        let resumed = withUnsafePointer(to: value) { value in
            host._withUnsafeGuaranteedRef { host in
                host.suspend(current, handingOut: { $0.assumingMemoryBound(to: Any?.self).initialize(to: AnyValue.copy(value)) },
                             resumedWith: Void.self)
            }
        }
        // Only Generator's throw/return/close send anything but a value; RJIterator has none.
        guard case .value = resumed else { return nil }
        let gaveInput = channel._withUnsafeGuaranteedRef { channel in
            channel.resumedWithInput = channel.hasInput
            channel.hasInput = false
            return channel.resumedWithInput
        }
        guard gaveInput else { return AnyValue.copy(value) }  // `next()`
        return channel._withUnsafeGuaranteedRef { $0.input.move() }
    }

    /// `rj_yield(inner)`: yields each of `inner`'s values, its return value included, passing
    /// the inputs of `next` on to it.
    func delegate(to inner: RJIterator, _ host: Unmanaged<_RJCoroutineHost>, _ current: OpaquePointer) -> Any? {
        var result = inner.next()
        while true {
            let resumedWith = SeedChannel.yield(result.value, Unmanaged.passUnretained(self), host, current)
            let gaveInput = resumedWithInput
            if result.done || result.error != nil { return resumedWith }
            result = gaveInput ? inner.next(resumedWith) : inner.next()
        }
    }
}

/// Suspends the ``RJIterator`` whose body runs on this thread, handing `value` to its caller;
/// returns `value` after `next()`, `x` after `next(x)`; delegates to a yielded `RJIterator`.
/// Outside any `RJIterator` body (a plain thread, a ``Generator`` body) it returns `nil`.
///
/// ```swift
/// let it = RJIterator { rj_yield("ready") }   // the body returns "go" after it.next("go")
/// ```
@discardableResult
public func rj_yield(_ value: borrowing Any?) -> Any? {
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

/// Whether `value` may hold an ``RJIterator``, read from its type metadata without copying it
/// (every copy of an `Any?` is a call into the runtime): a struct, enum, optional, tuple or
/// function type cannot be one; only the others (classes, existentials) go through the cast.
@inline(__always)
private func mayHoldAnIterator(_ value: borrowing Any?) -> Bool {
    let metadata = AnyValue.metadata(value)
    guard let metadata else { return false }
    if metadata == unsafeBitCast(RJIterator.self, to: UnsafeRawPointer.self) { return true }
    switch metadata.load(as: UInt.self) {
    case MetadataKind.struct, MetadataKind.enum, MetadataKind.optional, MetadataKind.tuple, MetadataKind.function:
        return false
    default:
        return true
    }
}

/// The kinds Swift's runtime gives type metadata (its first word; the values of the Swift ABI's
/// MetadataKind.def), of the types whose values are never a class instance.
private enum MetadataKind {
    static let `struct`: UInt = 0x200
    static let `enum`: UInt = 0x201
    static let optional: UInt = 0x202
    static let tuple: UInt = 0x301
    static let function: UInt = 0x302
}
