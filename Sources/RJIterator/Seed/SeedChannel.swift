/// Where an ``RJIterator``'s inputs and return value cross between `next` and `rj_yield`: the
/// generator's `client`, found by `rj_yield` through the running coroutine. Touched only by the
/// thread holding the generator's `running` state, hence unchecked.
@usableFromInline
final class SeedChannel {
    /// What the pending `rj_yield` returns, put there by `next(x)`; initialised only while
    /// `hasInput`. `next()` leaves it empty: its pending `rj_yield(v)` returns `v` itself.
    @usableFromInline let input = UnsafeMutablePointer<Any?>.allocate(capacity: 1)
    @usableFromInline @exclusivity(unchecked) var hasInput = false
    /// The body's return value, reported by every `next` after the end.
    @usableFromInline @exclusivity(unchecked) var returned: Any?

    @usableFromInline init() {}

    deinit {
        // An input the body never took.
        if hasInput { AnyValue.destroy(input) }
        input.deallocate()
    }

    /// The generator's `clientKind` when its client is a `SeedChannel` (an `rj_async` task's
    /// and an async generator's is the await host's, 1).
    @inlinable
    static var clientKind: UInt8 { 2 }

    /// The channel of the `RJIterator` whose generator is `host`, or nil when `host` is another
    /// kind of generator.
    @inlinable @inline(__always)
    static func of(_ host: Unmanaged<_RJCoroutineHost>) -> Unmanaged<SeedChannel>? {
        host._withUnsafeGuaranteedRef { host in
            guard host.clientKind == clientKind else { return nil }
            // Set with the kind, before the body first runs. Never a strong reference: the body's
            // suspended frames must not keep the channel alive.
            return Unmanaged<SeedChannel>.fromOpaque(host.client.unsafelyUnwrapped.toOpaque())
        }
    }

    /// The body's side of `rj_yield`: hands `value` out, suspends, and returns what the
    /// resuming `next` gave. Runs on the body's stack (`current`, owned by `host`). The host
    /// travels unmanaged: an unoptimised build would keep a strong copy of a reference
    /// argument in this frame, which outlives an abandoned body and leaks the generator.
    @inlinable @inline(__always)
    static func yield(
        _ value: borrowing Any?, _ channel: Unmanaged<SeedChannel>, _ host: Unmanaged<_RJCoroutineHost>,
        _ current: OpaquePointer, gaveInput: UnsafeMutablePointer<Bool>? = nil
    ) -> Any? {
        withUnsafePointer(to: value) { yield($0, channel, host, current, bitwise: AnyValue.isBitwise($0), gaveInput: gaveInput) }
    }

    /// `yield` of the value at `value`, `bitwise` saying whether its four words are the whole
    /// of it (`AnyValue.isBitwise`); `gaveInput` is set when the resuming `next` gave a value
    /// (`next(x)`), for a delegation.
    @inlinable @inline(__always)
    static func yield(
        _ value: UnsafePointer<Any?>, _ channel: Unmanaged<SeedChannel>, _ host: Unmanaged<_RJCoroutineHost>,
        _ current: OpaquePointer, bitwise: Bool, gaveInput: UnsafeMutablePointer<Bool>? = nil
    ) -> Any? {
        let resumed = host._withUnsafeGuaranteedRef { host in
            host.suspend(current, handingOut: { AnyValue.initialize($0.assumingMemoryBound(to: Any?.self), to: value, bitwise: bitwise) },
                         resumedWith: Void.self)
        }
        // Only Generator's throw/return/close send anything but a value; RJIterator has none.
        guard case .value = resumed else { return nil }
        return channel._withUnsafeGuaranteedRef { channel in
            // `next(x)`: x, moved out of the channel; `next()`: the value itself.
            guard channel.hasInput else { return AnyValue.copy(value, bitwise: bitwise) }
            channel.hasInput = false
            gaveInput?.pointee = true
            return channel.input.move()
        }
    }

    /// `rj_yield(inner)`: yields each of `inner`'s values, its return value included, passing
    /// the inputs of `next` on to it.
    @usableFromInline
    func delegate(to inner: RJIterator, _ host: Unmanaged<_RJCoroutineHost>, _ current: OpaquePointer) -> Any? {
        var result = inner.next()
        while true {
            // Whether the `next` that resumes this yield gives a value: `hasInput` is set then
            // (by `next(x)`, holding the generator) and cleared by the yield.
            var gaveInput = false
            let resumedWith = withUnsafeMutablePointer(to: &gaveInput) {
                SeedChannel.yield(result.storedValue, Unmanaged.passUnretained(self), host, current, gaveInput: $0)
            }
            if result.done || result.error != nil { return resumedWith }
            result = gaveInput ? inner.next(resumedWith) : inner.next()
        }
    }
}
