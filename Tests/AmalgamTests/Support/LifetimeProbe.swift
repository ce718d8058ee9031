/// An object captured by a registered closure, to check through a weak reference when it is released.
final class LifetimeProbe {}
