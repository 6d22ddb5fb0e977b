package org.clustersim.strategies.training;

/**
 * An object compared by identity, for keys of what a plan's steps share (the model, kernels and
 * cluster they were built with, a schedule's rank programs): those are the same instance for
 * every layout of a plan, and comparing them by value would be slow where it is not wrong.
 *
 * @param of the object
 */
record SameObject(Object of) {
    @Override
    public boolean equals(Object o) {
        return o instanceof SameObject s && s.of == of;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(of);
    }
}
