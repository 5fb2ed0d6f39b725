import CRJContext

/// Where a generator's frames live while it is suspended: a stack of its own (`dedicated`, the
/// fastest resumes), or one of a few run stacks shared with others (`shared`: a suspended
/// generator's frames wait in a heap block their size). docs/generators.md, "Which stack mode".
///
/// ```swift
/// RJRuntime.defaultStackMode = .shared                       // every generator made from now on
/// let g = Generator<Int, Void, Void>(stackMode: .dedicated) { y in try y.yield(1) }   // this one not
/// ```
public enum StackMode: Sendable, Hashable, CustomStringConvertible {
    case dedicated
    case shared

    @inlinable
    init(_ mode: rj_stack_mode) {
        self = mode == RJ_STACK_SHARED ? .shared : .dedicated
    }

    @inlinable
    var cValue: rj_stack_mode { self == .shared ? RJ_STACK_SHARED : RJ_STACK_DEDICATED }

    public var description: String { self == .shared ? "shared" : "dedicated" }
}
