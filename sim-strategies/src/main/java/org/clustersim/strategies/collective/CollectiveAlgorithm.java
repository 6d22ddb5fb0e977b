package org.clustersim.strategies.collective;

import java.util.List;
import java.util.Optional;

import org.clustersim.core.engine.Phase;
import org.clustersim.topology.Topology;

/**
 * A collective algorithm: how an operation over a group becomes phases of concurrent flows,
 * each phase followed by the algorithm's step latencies. The network then decides how long
 * the flows take, so contention with anything else on the same links shows by itself.
 */
public interface CollectiveAlgorithm {
    /** Name used on the command line ({@code ring}, {@code tree}, ...). */
    String name();

    /** Empty if the algorithm can run {@code op} over {@code group}; otherwise why not. */
    Optional<String> unsupported(CollectiveOp op, CommGroup group, Topology topology);

    /**
     * The phases for {@code bytes} (nccl-tests' S) with the given protocol.
     *
     * @throws IllegalArgumentException if {@link #unsupported} says so
     */
    List<Phase> plan(CollectiveOp op, CommGroup group, long bytes, Protocol protocol, Topology topology);

    /** Protocols the algorithm can use (NVLS only the bulk protocol). */
    default List<Protocol> protocols() {
        return List.of(Protocol.LL, Protocol.LL128, Protocol.SIMPLE);
    }

    /** Throws if {@link #unsupported} reports a reason. */
    default void requireSupported(CollectiveOp op, CommGroup group, Topology topology) {
        unsupported(op, group, topology).ifPresent(why -> {
            throw new IllegalArgumentException(name() + " cannot run " + op.id() + " over " + group.size()
                    + " ranks: " + why);
        });
    }
}
