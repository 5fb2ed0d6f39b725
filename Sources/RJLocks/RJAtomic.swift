import CRJShims

#if !RJ_NO_SYNCHRONIZATION
import Synchronization
#endif

/// A value that fits a 64-bit word, so that ``RJAtomic`` can hold it.
///
/// ```swift
/// extension Phase: RJAtomicValue {
///     public init(atomicWord: UInt64) { self = Phase(rawValue: UInt8(atomicWord))! }
///     public var atomicWord: UInt64 { UInt64(rawValue) }
/// }
/// ```
public protocol RJAtomicValue {
    /// Makes the value back from its word.
    init(atomicWord: UInt64)
    /// The value as a word.
    var atomicWord: UInt64 { get }
}

extension Bool: RJAtomicValue {
    @inlinable public init(atomicWord: UInt64) { self = atomicWord != 0 }
    @inlinable public var atomicWord: UInt64 { self ? 1 : 0 }
}

extension Int: RJAtomicValue {
    @inlinable public init(atomicWord: UInt64) { self = Int(truncatingIfNeeded: atomicWord) }
    @inlinable public var atomicWord: UInt64 { UInt64(truncatingIfNeeded: self) }
}

extension UInt: RJAtomicValue {
    @inlinable public init(atomicWord: UInt64) { self = UInt(truncatingIfNeeded: atomicWord) }
    @inlinable public var atomicWord: UInt64 { UInt64(truncatingIfNeeded: self) }
}

extension UInt64: RJAtomicValue {
    @inlinable public init(atomicWord: UInt64) { self = atomicWord }
    @inlinable public var atomicWord: UInt64 { self }
}

/// The memory order of an ``RJAtomic`` access, with `Synchronization`'s names. An order that
/// does not apply to an access (`releasing` for a load) gives the strongest one.
@frozen
public enum RJAtomicOrdering: Sendable {
    case relaxed, acquiring, releasing, acquiringAndReleasing, sequentiallyConsistent
}

/// The package's atomic word: the toolchain's `Synchronization.Atomic` where the package uses
/// `Synchronization` (Linux), a word of C11 atomics (sequentially consistent, one allocation)
/// on Apple platforms below macOS 15 / iOS 18, which it also supports, and in a Linux build
/// with `-Xswiftc -DRJ_NO_SYNCHRONIZATION` (CI runs the suite that way, so the Apple code path
/// is tested). One API, a subset of `Atomic`'s.
///
/// ```swift
/// let hits = RJAtomic<Int>(0)
/// hits.add(1, ordering: .relaxed)
/// ```
public struct RJAtomic<Value: RJAtomicValue>: ~Copyable, @unchecked Sendable {
    #if !RJ_NO_SYNCHRONIZATION
    @usableFromInline let word: Atomic<UInt64>

    /// Makes an atomic holding `value`.
    @inlinable
    public init(_ value: Value) {
        word = Atomic(value.atomicWord)
    }

    /// Reads the value.
    @inlinable @inline(__always)
    public func load(ordering: RJAtomicOrdering) -> Value {
        switch ordering {
        case .relaxed: return Value(atomicWord: word.load(ordering: .relaxed))
        case .acquiring: return Value(atomicWord: word.load(ordering: .acquiring))
        default: return Value(atomicWord: word.load(ordering: .sequentiallyConsistent))
        }
    }

    /// Writes `value`.
    @inlinable @inline(__always)
    public func store(_ value: Value, ordering: RJAtomicOrdering) {
        switch ordering {
        case .relaxed: word.store(value.atomicWord, ordering: .relaxed)
        case .releasing: word.store(value.atomicWord, ordering: .releasing)
        default: word.store(value.atomicWord, ordering: .sequentiallyConsistent)
        }
    }

    /// Writes `value` and returns the value it replaced.
    @inlinable @inline(__always)
    public func exchange(_ value: Value, ordering: RJAtomicOrdering) -> Value {
        switch ordering {
        case .relaxed: return Value(atomicWord: word.exchange(value.atomicWord, ordering: .relaxed))
        case .acquiring: return Value(atomicWord: word.exchange(value.atomicWord, ordering: .acquiring))
        case .releasing: return Value(atomicWord: word.exchange(value.atomicWord, ordering: .releasing))
        case .acquiringAndReleasing:
            return Value(atomicWord: word.exchange(value.atomicWord, ordering: .acquiringAndReleasing))
        case .sequentiallyConsistent:
            return Value(atomicWord: word.exchange(value.atomicWord, ordering: .sequentiallyConsistent))
        }
    }

    /// Writes `desired` if the value is `expected`; returns whether it did and the value seen.
    @inlinable @inline(__always)
    public func compareExchange(expected: Value, desired: Value, ordering: RJAtomicOrdering)
        -> (exchanged: Bool, original: Value)
    {
        let result: (exchanged: Bool, original: UInt64)
        switch ordering {
        case .relaxed:
            result = word.compareExchange(expected: expected.atomicWord, desired: desired.atomicWord, ordering: .relaxed)
        case .acquiring:
            result = word.compareExchange(expected: expected.atomicWord, desired: desired.atomicWord, ordering: .acquiring)
        case .releasing:
            result = word.compareExchange(expected: expected.atomicWord, desired: desired.atomicWord, ordering: .releasing)
        case .acquiringAndReleasing:
            result = word.compareExchange(
                expected: expected.atomicWord, desired: desired.atomicWord, ordering: .acquiringAndReleasing)
        case .sequentiallyConsistent:
            result = word.compareExchange(
                expected: expected.atomicWord, desired: desired.atomicWord, ordering: .sequentiallyConsistent)
        }
        return (result.exchanged, Value(atomicWord: result.original))
    }
    #else
    /// C11 atomics on a word of its own: a stored property has no address Swift guarantees.
    @usableFromInline let word: UnsafeMutablePointer<UInt64>

    /// Makes an atomic holding `value`.
    @inlinable
    public init(_ value: Value) {
        word = .allocate(capacity: 1)
        word.initialize(to: value.atomicWord)
    }

    deinit {
        word.deallocate()
    }

    /// Reads the value.
    @inlinable @inline(__always)
    public func load(ordering: RJAtomicOrdering) -> Value {
        Value(atomicWord: rj_atomic_load(word))
    }

    /// Writes `value`.
    @inlinable @inline(__always)
    public func store(_ value: Value, ordering: RJAtomicOrdering) {
        rj_atomic_store(word, value.atomicWord)
    }

    /// Writes `value` and returns the value it replaced.
    @inlinable @inline(__always)
    public func exchange(_ value: Value, ordering: RJAtomicOrdering) -> Value {
        Value(atomicWord: rj_atomic_exchange(word, value.atomicWord))
    }

    /// Writes `desired` if the value is `expected`; returns whether it did and the value seen.
    @inlinable @inline(__always)
    public func compareExchange(expected: Value, desired: Value, ordering: RJAtomicOrdering)
        -> (exchanged: Bool, original: Value)
    {
        let seen = rj_atomic_compare_exchange(word, expected.atomicWord, desired.atomicWord)
        return (seen == expected.atomicWord, Value(atomicWord: seen))
    }
    #endif
}

extension RJAtomic where Value: FixedWidthInteger {
    /// Adds `delta` (wrapping) and returns the values before and after.
    @inlinable @inline(__always) @discardableResult
    public func add(_ delta: Value, ordering: RJAtomicOrdering) -> (oldValue: Value, newValue: Value) {
        #if !RJ_NO_SYNCHRONIZATION
        let old: UInt64
        switch ordering {
        case .relaxed: old = word.wrappingAdd(delta.atomicWord, ordering: .relaxed).oldValue
        case .acquiring: old = word.wrappingAdd(delta.atomicWord, ordering: .acquiring).oldValue
        case .releasing: old = word.wrappingAdd(delta.atomicWord, ordering: .releasing).oldValue
        case .acquiringAndReleasing: old = word.wrappingAdd(delta.atomicWord, ordering: .acquiringAndReleasing).oldValue
        case .sequentiallyConsistent: old = word.wrappingAdd(delta.atomicWord, ordering: .sequentiallyConsistent).oldValue
        }
        #else
        let old = rj_atomic_fetch_add(word, delta.atomicWord)
        #endif
        let oldValue = Value(atomicWord: old)
        return (oldValue, oldValue &+ delta)
    }
}
