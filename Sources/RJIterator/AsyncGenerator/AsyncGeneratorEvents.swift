/// What an async generator's body hands out when its coroutine suspends: a value for whoever the
/// turn serves, or the generation of an await it now waits in (the core's `Element`).
@usableFromInline
enum AsyncHandOut<Element> {
    case value(Element)
    case awaiting(UInt64)
}

/// What an async generator's body is resumed with: a request's input, or news that its await has
/// a result, taken from the await state (an `RJResult` here would be copied through value
/// witnesses). The core's `Input`; an error or a close is the core's own resume signal.
@usableFromInline
enum AsyncResumeInput<Input> {
    case input(Input)
    case awaited
}
