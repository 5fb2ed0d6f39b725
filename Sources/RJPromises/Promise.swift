import Dispatch
import RJLocks

/// A value that will be there later, or an error: the core of the promise API.
///
/// A promise starts *pending* and settles once: *fulfilled* with a value or *rejected* with an
/// error; settling again is ignored. Blocks attached with `then`, `catch` and the other
/// operators (one per file, `Promise+Then.swift`...) run asynchronously on a dispatch queue,
/// `DispatchQueue.promises` unless you pass `on:`, in the order they were attached, also when
/// the promise was already settled.
///
/// ```swift
/// let p = Promise<Int>.pending()
/// p.then { print("got \($0)") }
///  .catch { print("failed: \($0)") }
/// p.fulfill(42)
/// ```
///
/// Threads: every member is safe to call from any thread. A promise is `Sendable`, and so must be
/// its value: it is handed from the thread that settles it to the queues that observe it.
///
/// Lifetime: a pending promise is kept alive by whoever can still settle it (its `fulfill` and
/// `reject` closures, a promise it waits for) and keeps alive the promises derived from it
/// until it settles; then it lets them go. A pending promise nobody references is freed, with
/// the chain hanging on it.
public final class Promise<Value: Sendable>: @unchecked Sendable {
    @usableFromInline typealias Outcome = Result<Value, any Error>

    /// Something waiting for the outcome: a block to run on a queue, or (inside this module)
    /// one to run synchronously on the thread that settles the promise. Neither takes a
    /// `Result<Value, any Error>` parameter, which made every block stored here a
    /// reabstraction thunk, one more allocation per observer: a queued block reads the outcome
    /// through `settledReference`, an inline one gets the settled promise (a class reference
    /// is passed alike in generic and in specialised code).
    @usableFromInline
    enum Observer {
        /// A block for `queue`; it reads the outcome through a `SettledReference`, which
        /// releases the reference `deliver` took for it. The block itself is what is
        /// dispatched: no closure is made when the promise settles.
        case queued(DispatchQueue, @Sendable () -> Void)
        case inline(@Sendable (Promise<Value>) -> Void)
    }

    @usableFromInline let lock = RJLock()
    // Guarded by `lock`, which already makes every access exclusive: no dynamic check.
    //
    // The outcome is kept in fields whose layout does not depend on `Value`: a small trivial
    // value (an Int, a Double, Void, a small POD struct) in `inlineValue`'s bytes, any other
    // value in its own small object, the error as an existential. A stored
    // `Result<Value, any Error>?` made every promise's deinit (generic code, shared by all
    // `Value`s) look up the metadata of `Result<Value, any Error>` and of its `Optional` in
    // the runtime's cache: two hash lookups, most of the cost of making and dropping a
    // fulfilled promise (docs/performance.md).
    @usableFromInline @exclusivity(unchecked) var state = SettledState.pending
    @usableFromInline @exclusivity(unchecked) var inlineValue: (UInt64, UInt64) = (0, 0)
    @usableFromInline @exclusivity(unchecked) var fulfilled: Fulfilled<Value>?
    @usableFromInline @exclusivity(unchecked) var failure: (any Error)?
    @usableFromInline @exclusivity(unchecked) var firstObserver: Observer?
    @usableFromInline @exclusivity(unchecked) var moreObservers: [Observer] = []

    /// Whether a value of type `Value` is kept in `inlineValue`: trivial (no references, no
    /// cleanup), at most 16 bytes, aligned at most to 8. Constant in specialised code.
    @inlinable
    static var keepsValueInline: Bool {
        _isPOD(Value.self) && MemoryLayout<Value>.size <= 16 && MemoryLayout<Value>.alignment <= 8
    }

    /// Whether the promise has settled. Read or written holding `lock`.
    @inlinable
    var isSettled: Bool { state != .pending }

    /// The outcome, built from the fields. Read or written holding `lock`.
    @inlinable
    var outcome: Outcome? {
        get {
            switch state {
            case .pending:
                return nil
            case .fulfilled:
                if Self.keepsValueInline {
                    return .success(withUnsafeBytes(of: inlineValue) { $0.load(as: Value.self) })
                }
                return .success(fulfilled.unsafelyUnwrapped.value)
            case .rejected:
                return .failure(failure.unsafelyUnwrapped)
            }
        }
        set {
            switch newValue {
            case .success(let value)?:
                if Self.keepsValueInline {
                    withUnsafeMutableBytes(of: &inlineValue) { $0.storeBytes(of: value, as: Value.self) }
                } else {
                    fulfilled = Fulfilled(value)
                }
                state = .fulfilled
            case .failure(let error)?:
                failure = error
                state = .rejected
            case nil:
                break
            }
        }
    }

    /// Whether this promise entered `DispatchGroup.promises` (made pending in testing mode);
    /// it leaves once, when it settles or goes away.
    @usableFromInline @exclusivity(unchecked) var inTestingGroup = false

    /// Makes a pending promise, to settle later with ``fulfill(_:)`` or ``reject(_:)``.
    ///
    /// ```swift
    /// let p = Promise<String>.pending()
    /// DispatchQueue.global().async { p.fulfill("done") }
    /// ```
    @inlinable
    public static func pending() -> Promise<Value> {
        Promise(settled: nil)
    }

    /// Makes a promise already fulfilled with `value`.
    ///
    /// ```swift
    /// let p = Promise(42)   // Promise<Int>, fulfilled
    /// ```
    ///
    /// An `Error` argument always makes a rejected promise, as in google/promises:
    /// `Promise(e)`, `Promise<Int>(e)`, `Promise<any Error>(e)`. A promise fulfilled with an
    /// error value is made explicitly: `Promise<any Error>.pending()`, then `fulfill(e)`.
    @inlinable @_disfavoredOverload
    public init(_ value: Value) {
        outcome = .success(value)
    }

    /// Makes a promise already fulfilled with `()`, google/promises' `Promise()`.
    ///
    /// ```swift
    /// let ready = Promise()   // Promise<Void>, fulfilled
    /// ```
    @inlinable
    public convenience init() where Value == Void {
        self.init(())
    }

    /// Makes a promise already rejected with `error`.
    ///
    /// ```swift
    /// let p = Promise<Int>(URLError(.timedOut))
    /// ```
    @inlinable
    public init(_ error: any Error) {
        outcome = .failure(error)
    }

    @inlinable
    init(settled: Outcome?) {
        outcome = settled
        if settled == nil, inPromisesTestingMode {
            inTestingGroup = true
            DispatchGroup.promises.enter()
        }
    }

    deinit {
        if inTestingGroup, !isSettled { DispatchGroup.promises.leave() }
        // A pending promise going away with blocks still attached: dropping them may free
        // derived promises, whose deinit drops theirs, and so on down a chain of any length.
        // Hand them to the thread's trampoline so the chain is freed in a loop, not by recursion.
        // Move everything out of the stored properties, so that the trampoline holds the only
        // references and frees them inside its loop.
        if firstObserver != nil {
            let first = firstObserver.take()
            let more = moreObservers
            moreObservers = []
            // `consume`: without it an unoptimised build keeps the locals and releases them
            // here, after the trampoline has finished, and the recursion is back.
            Trampoline.drop((consume first, consume more))
        }
    }

    // MARK: Settling

    /// Fulfills a pending promise with `value`; on a settled promise it does nothing.
    ///
    /// ```swift
    /// let p = Promise<Int>.pending()
    /// p.fulfill(1)
    /// p.fulfill(2)   // ignored: p keeps 1
    /// ```
    @inlinable
    public func fulfill(_ value: Value) {
        settle(.success(value))
    }

    /// Rejects a pending promise with `error`; on a settled promise it does nothing.
    ///
    /// ```swift
    /// p.reject(MyError.offline)
    /// ```
    @inlinable
    public func reject(_ error: any Error) {
        settle(.failure(error))
    }

    /// Settles the promise with `result`, as ``fulfill(_:)`` or ``reject(_:)`` would.
    ///
    /// ```swift
    /// p.resolve(with: Result { try load() })
    /// ```
    @inlinable
    public func resolve(with result: Result<Value, any Error>) {
        settle(result)
    }

    @inlinable
    func settle(_ result: Outcome) {
        let inline: [@Sendable (Promise<Value>) -> Void] = lock.withLock {
            guard !isSettled else { return [] }
            outcome = result
            // Queued blocks are dispatched before the lock is released, so that one attached
            // right after the settling cannot overtake them on a serial queue.
            var inline: [@Sendable (Promise<Value>) -> Void] = []
            deliver(firstObserver.take(), collecting: &inline)
            if !moreObservers.isEmpty {
                let more = moreObservers
                moreObservers = []
                for observer in more { deliver(observer, collecting: &inline) }
            }
            // After its blocks entered the group, so that the group cannot empty in between.
            if inTestingGroup { DispatchGroup.promises.leave() }
            return inline
        }
        if !inline.isEmpty {
            Trampoline.run { for body in inline { body(self) } }
        }
    }

    @inlinable
    func deliver(_ observer: consuming Observer?, collecting inline: inout [@Sendable (Promise<Value>) -> Void]) {
        // Consumed: its queue and block are handed on without a retain and a release each.
        switch consume observer {
        case .queued(let queue, let body)?: dispatch(body, on: queue)
        case .inline(let body)?: inline.append(body)
        case nil: break
        }
    }

    /// The outcome of a settled promise, read without the lock: the fields never change once
    /// settled, and an observer runs after the settling (through the lock, or through the
    /// queue its block was dispatched to).
    @inlinable
    var settledOutcome: Outcome {
        outcome.unsafelyUnwrapped
    }

    // MARK: Observing

    /// Runs `body`, asynchronously on `queue`, once the promise settles (or right away, still
    /// asynchronously, if it has). `body` reads the outcome through `settledReference`.
    @inlinable
    func observe(on queue: DispatchQueue, _ body: @escaping @Sendable () -> Void) {
        lock.withLock {
            if isSettled {
                dispatch(body, on: queue)
                return
            }
            append(.queued(queue, body))
        }
    }

    /// Dispatches a settled promise's queued block. The promise takes one retain for it, which
    /// the block's `SettledReference.take()` gives back: it stays alive until the block has read
    /// its outcome.
    @inlinable
    func dispatch(_ body: @escaping @Sendable () -> Void, on queue: DispatchQueue) {
        _ = Unmanaged.passRetained(self)
        Self.schedule(on: queue, body)
    }

    /// What a block given to `observe(on:_:)` captures to read the outcome: an unretained
    /// reference (a pending promise must not be kept alive by its own observers), which
    /// `take()` turns back into the one retain the promise took for the block when it
    /// dispatched it. Each block calls `take()` exactly once, first.
    @inlinable
    var settledReference: SettledReference<Value> {
        SettledReference(promise: Unmanaged.passUnretained(self))
    }

    /// Runs `body` with the settled promise on the thread that settles it (now, if it has).
    /// For this module's plumbing: adopting a promise, waiting for one.
    @inlinable
    func observeInline(_ body: @escaping @Sendable (Promise<Value>) -> Void) {
        let settled: Bool = lock.withLock {
            if isSettled { return true }
            append(.inline(body))
            return false
        }
        if settled { Trampoline.run { body(self) } }
    }

    @inlinable
    func append(_ observer: Observer) {
        if firstObserver == nil {
            firstObserver = observer
        } else {
            moreObservers.append(observer)
        }
    }

    /// Settles this promise as `other` settles. A promise asked to adopt itself is rejected
    /// with ``PromiseError/chainingCycle`` instead of waiting for itself forever.
    @inlinable
    func adopt(_ other: Promise<Value>) {
        if other === self {
            reject(PromiseError.chainingCycle)
            return
        }
        other.observeInline { [self] in settle($0.settledOutcome) }
    }

    // MARK: State

    /// The outcome so far, read atomically.
    @inlinable
    var currentOutcome: Outcome? {
        lock.withLock { outcome }
    }

    /// Whether the promise has not settled yet.
    ///
    /// ```swift
    /// Promise<Int>.pending().isPending   // true
    /// ```
    public var isPending: Bool { currentOutcome == nil }

    /// Whether the promise was fulfilled.
    ///
    /// ```swift
    /// Promise(1).isFulfilled   // true
    /// ```
    public var isFulfilled: Bool {
        if case .success? = currentOutcome { return true }
        return false
    }

    /// Whether the promise was rejected (cancellation included).
    ///
    /// ```swift
    /// Promise<Int>(MyError.failed).isRejected   // true
    /// ```
    public var isRejected: Bool {
        if case .failure? = currentOutcome { return true }
        return false
    }

    /// The value, if the promise was fulfilled; `nil` while pending or if rejected. To wait for
    /// it, use `then`, ``awaitPromise()`` or, from async code, ``value``.
    ///
    /// ```swift
    /// Promise(3).fulfilledValue   // 3
    /// ```
    public var fulfilledValue: Value? {
        if case .success(let value)? = currentOutcome { return value }
        return nil
    }

    /// The outcome, if the promise has settled: its value or its error; `nil` while pending.
    /// One read, so a promise settling meanwhile cannot be seen half-way.
    ///
    /// ```swift
    /// if let result = promise.settledResult { use(try result.get()) }
    /// ```
    public var settledResult: Result<Value, any Error>? { currentOutcome }

    /// The error, if the promise was rejected; `nil` while pending or if fulfilled.
    ///
    /// ```swift
    /// Promise<Int>(MyError.failed).error   // MyError.failed
    /// ```
    public var error: (any Error)? {
        if case .failure(let error)? = currentOutcome { return error }
        return nil
    }
}

extension Promise: CustomStringConvertible {
    public var description: String {
        switch currentOutcome {
        case nil: return "Promise<\(Value.self)>(pending)"
        case .success(let value)?: return "Promise<\(Value.self)>(fulfilled: \(value))"
        case .failure(let error)?: return "Promise<\(Value.self)>(rejected: \(error))"
        }
    }
}

extension Promise where Value: Error {
    /// Makes a promise already rejected with `error`: with no type annotation, `Promise(e)`
    /// would otherwise infer `Value` from `e` and be fulfilled with it. The error initialiser
    /// wins for an `Error` argument, as in google/promises.
    ///
    /// ```swift
    /// let p = Promise(URLError(.timedOut))   // rejected
    /// ```
    @inlinable
    public convenience init(_ error: Value) {
        self.init(error as any Error)
    }
}

/// See `Promise.settledReference`.
@usableFromInline
struct SettledReference<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let promise: Unmanaged<Promise<Value>>

    @inlinable
    init(promise: Unmanaged<Promise<Value>>) {
        self.promise = promise
    }

    /// The settled outcome; releases the reference taken for this block.
    @inlinable
    func take() -> Result<Value, any Error> {
        promise.takeRetainedValue().settledOutcome
    }
}

/// Where a promise is in its life.
@usableFromInline
enum SettledState: UInt8 {
    case pending, fulfilled, rejected
}

/// A fulfilled promise's value (one not kept inline), in an object of its own: its only field has type `Value`
/// itself, so releasing it needs no generic metadata beyond `Value`'s (see `Promise.fulfilled`).
@usableFromInline
final class Fulfilled<Value>: @unchecked Sendable {
    @usableFromInline let value: Value

    @inlinable
    init(_ value: Value) {
        self.value = value
    }
}
