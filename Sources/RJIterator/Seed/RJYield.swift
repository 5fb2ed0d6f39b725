import CRJContext

/// Suspends the ``RJIterator`` whose body runs on this thread, handing `value` to its caller;
/// returns `value` after `next()`, `x` after `next(x)`; delegates to a yielded `RJIterator`.
/// Anywhere else it stops the program with a message that says what to call there instead.
///
/// ```swift
/// let it = RJIterator { rj_yield("ready") }   // the body returns "go" after it.next("go")
/// ```
@inlinable @inline(__always) @discardableResult
public func rj_yield(_ value: borrowing Any?) -> Any? {
    guard let current = rj_coro_current(), let owner = rj_coro_owner(current) else { rjYieldOutsideBody(nil) }
    // Unmanaged, not retained: a strong reference on the suspended stack would outlive an
    // abandoned body and leak the generator.
    let host = Unmanaged<_RJCoroutineHost>.fromOpaque(owner)
    // Only an RJIterator's generator takes the seed's untyped values.
    guard let channel = SeedChannel.of(host) else { rjYieldOutsideBody(host) }
    return withUnsafePointer(to: value) { value in
        // A trivial inline value (an Int, a Double) is copied as its bytes, and is no iterator.
        let bitwise = AnyValue.isBitwise(value)
        if !bitwise, mayHoldAnIterator(AnyValue.metadata(value).unsafelyUnwrapped) {
            return yieldOrDelegate(value.pointee, channel, host, current)
        }
        return SeedChannel.yield(value, channel, host, current, bitwise: bitwise)
    }
}

/// `rj_yield` of a value that may be an ``RJIterator`` (a class instance or an existential):
/// delegates to it if it is one; yields it otherwise. Out of line: the cast is a call into the
/// runtime anyway.
@usableFromInline @inline(never)
func yieldOrDelegate(
    _ value: borrowing Any?, _ channel: Unmanaged<SeedChannel>, _ host: Unmanaged<_RJCoroutineHost>, _ current: OpaquePointer
) -> Any? {
    if let inner = copy value as? RJIterator {
        return channel._withUnsafeGuaranteedRef { $0.delegate(to: inner, host, current) }
    }
    return SeedChannel.yield(value, channel, host, current)
}

/// Whether a value of the type `metadata` describes may be an ``RJIterator``, read from the
/// metadata without copying the value (a trivial inline value, which `rj_yield` tells first,
/// cannot be one either): a struct, enum, optional, tuple or function type cannot be one; only
/// the others (classes, existentials) go through the cast.
@inlinable @inline(__always)
func mayHoldAnIterator(_ metadata: UnsafeRawPointer) -> Bool {
    // The kinds Swift's runtime gives type metadata (its first word; the values of the Swift
    // ABI's MetadataKind.def) of the types whose values are never a class instance: struct
    // 0x200, enum 0x201, optional 0x202, tuple 0x301, function 0x302.
    switch metadata.load(as: UInt.self) {
    case 0x200, 0x201, 0x202, 0x301, 0x302: return false
    default: return true
    }
}

/// Stops the program: `rj_yield` called where no `RJIterator`'s body runs. `host` is the
/// generator whose body called it (a `Generator`'s, an `rj_async` task's, an async
/// generator's), nil outside any body. The message names the call and what to write instead.
@usableFromInline @inline(never)
func rjYieldOutsideBody(_ host: Unmanaged<_RJCoroutineHost>?) -> Never {
    let head = "RJIterator: rj_yield called outside an RJIterator's body"
    guard let host else {
        fatalError(head + " (no generator body runs on this thread): rj_yield hands a value to the next() of the RJIterator "
                   + "whose body calls it. Call it in RJIterator { ... } (or a function that body calls); in a Generator's "
                   + "body, yield with try y.yield(value)")
    }
    let record = host._withUnsafeGuaranteedRef { $0.record }
    let body: String, instead: String
    switch record.kind {
    case .rjAsync:
        body = "the rj_async body made at \(record.siteText)"
        instead = "in an rj_async body, wait for work with rj_await(...)"
    case .asyncGenerator:
        body = "the body of the AsyncGenerator made at \(record.siteText)"
        instead = "in an AsyncGenerator's body, yield with try y.yield(value)"
    case .generator, .rjIterator:
        body = "the body of the Generator made at \(record.siteText)"
        instead = "in a Generator's body, yield with try y.yield(value)"
    }
    fatalError(head + ", in \(body): rj_yield hands a value only to the next() of the RJIterator whose body calls it; "
               + instead)
}
