/// How a body ended, ES6's word for it: it returned, threw, or was closed (the exit signal went
/// through every cleanup without a `return(_:)` value to complete with).
@usableFromInline
enum Completion<Return> {
    case returned(Return)
    case threw(any Error)
    case closed
}

/// A completed generator's completion, kept without its static type; `none` until the body ends
/// (an `ErasedCompletion?` would go through `Optional`'s value witnesses at every creation and release).
@usableFromInline
enum ErasedCompletion {
    case none
    case returned(Any)
    /// Returned a trivial value of at most three words, kept as its bytes (no larger than
    /// `returned`'s payload): nothing to destroy, where an `Any` goes through value witnesses.
    case returnedInline(UInt64, UInt64, UInt64)
    case threw(any Error)
    case closed
}

extension ErasedCompletion {
    /// Whether a returned `Return` is kept as its bytes (`returnedInline`).
    @inlinable
    static func keepsInline<Return>(_: Return.Type) -> Bool {
        _isPOD(Return.self) && MemoryLayout<Return>.size <= 24 && MemoryLayout<Return>.alignment <= 8
    }

    @inlinable
    init<Return>(_ outcome: consuming Completion<Return>) {
        switch outcome {
        case .returned(let value) where Self.keepsInline(Return.self):
            var bytes: (UInt64, UInt64, UInt64) = (0, 0, 0)
            // Unprotected: three words written through their address are no array a write could
            // run off, and a stack protector costs every completion a canary's load and check.
            _withUnprotectedUnsafeMutablePointer(to: &bytes) { UnsafeMutableRawPointer($0).storeBytes(of: value, as: Return.self) }
            self = .returnedInline(bytes.0, bytes.1, bytes.2)
        case .returned(let value): self = .returned(value)
        case .threw(let error): self = .threw(error)
        case .closed: self = .closed
        }
    }
}

extension Completion {
    /// Which case its `ErasedCompletion` is, without the payload or making it: what the state
    /// machine keeps beside the erased outcome, so that a test of the case reads a byte.
    @inlinable
    var kind: OutcomeKind {
        switch self {
        case .returned: return ErasedCompletion.keepsInline(Return.self) ? .returnedInline : .returned
        case .threw: return .threw
        case .closed: return .closed
        }
    }
}

extension ErasedCompletion {
    /// Which case this is (a copy of the enum: for checks, not for hot paths).
    @inlinable
    var kind: OutcomeKind {
        switch self {
        case .none: return .none
        case .returned: return .returned
        case .returnedInline: return .returnedInline
        case .threw: return .threw
        case .closed: return .closed
        }
    }
}
