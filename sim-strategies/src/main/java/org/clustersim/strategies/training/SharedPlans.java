package org.clustersim.strategies.training;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

import org.clustersim.core.engine.Work;

/**
 * Communications that recur every layer and microbatch on the same GPUs (a ring step of TP
 * overlap or of ring attention, a CP collective), made once per kind, GPUs and size so that
 * every task running one shares its phases: the network memoises routes and flow classes per
 * phase, and a fresh plan per task held hundreds of thousands of phases at 16K GPUs.
 */
final class SharedPlans {
    private final Map<Key, Work.Communication> made = new HashMap<>();

    /** A plan's key: the GPUs compared by value, not by array identity. */
    private record Key(Object kind, long bytes, int[] devices) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.bytes == bytes && k.kind.equals(kind) && Arrays.equals(k.devices, devices);
        }

        @Override
        public int hashCode() {
            return (kind.hashCode() * 31 + Long.hashCode(bytes)) * 31 + Arrays.hashCode(devices);
        }
    }

    /**
     * The communication of {@code kind} and {@code bytes} over {@code devices}, {@code plan}
     * made on its first use only.
     */
    Work.Communication of(Object kind, int[] devices, long bytes, Supplier<Work.Communication> plan) {
        Key probe = new Key(kind, bytes, devices);
        Work.Communication w = made.get(probe);
        if (w == null) {
            w = plan.get();
            made.put(new Key(kind, bytes, devices.clone()), w);
        }
        return w;
    }

    /** How many distinct communications were made. */
    int size() {
        return made.size();
    }
}
