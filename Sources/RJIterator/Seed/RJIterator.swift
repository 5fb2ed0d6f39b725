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
    @usableFromInline let channel: SeedChannel
    /// The generator: its yielded values cross as its own do; the inputs of `next(x)` and the
    /// body's return value cross in `channel`.
    @usableFromInline let core: Generator<Any?, Void, Void>

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
        core.clientKind = SeedChannel.clientKind
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
    @inlinable @inline(__always) @discardableResult
    public func next() -> RJResult {
        step(nil, given: false)
    }

    /// Resumes the body; the pending `rj_yield` returns `value` (ignored by the first call).
    ///
    /// ```swift
    /// let r = it.next("again")
    /// ```
    @inlinable @inline(__always) @discardableResult
    public func next(_ value: consuming Any?) -> RJResult {
        step(value, given: true)
    }

    /// One step, as `Generator` performs it; resuming a suspended body is inlined: the input moves
    /// into the channel only once the step holds `running` (a concurrent `next` gets
    /// `alreadyRunning` and touches nothing), the yielded value straight into the result.
    @inlinable @inline(__always)
    func step(_ value: consuming Any?, given: Bool) -> RJResult {
        let action = core.machine.begin(GeneratorOperation<Void, Void>.next(()))
        guard case .resume(let signal) = action else { return carryOut(action, dropping: value) }
        if given { channel.input.initialize(to: value) }
        channel.hasInput = given
        return core.resume(inPlace: signal, yielded: { RJResult(value: $0.move(), error: nil, done: false) },
                           ended: { complete in completed(complete) })
    }

    /// The other actions of a `next`, which drop its value: the first (the body starts; the value
    /// is ignored, as in the original), and those that hold nothing (running: this body or
    /// another thread has it; completed: its return value again).
    @usableFromInline @inline(never)
    func carryOut(_ action: consuming GeneratorAction<Void, Void>, dropping value: consuming Any?) -> RJResult {
        _ = consume value
        do {
            switch try core.carryOut(action) {
            case .yielded(let value): return RJResult(value: value, error: nil, done: false)
            case .returned: return ended()
            }
        } catch {
            // Running (its own body, or another thread), or no stack: nothing was touched.
            return RJResult(value: nil, error: error, done: false)
        }
    }

    /// The body returned in this step: completes the generator (`complete`), and gives its result.
    @usableFromInline @inline(never)
    func completed(_ complete: () throws -> GeneratorStep<Any?, Void>) -> RJResult {
        do { _ = try complete() } catch {
            // A seed body cannot throw, and nothing closes it (it is dropped on release).
            return RJResult(value: nil, error: error, done: false)
        }
        return ended()
    }

    /// The result of every `next` once the body has returned: its return value, written by the
    /// body before it completed and never again.
    @usableFromInline @inline(never)
    func ended() -> RJResult {
        RJResult(value: AnyValue.copy(channel.returned), error: nil, done: true)
    }
}
