package org.clustersim.core.network;

/** A flow's destination cannot be reached (faults cut the fabric); names the flow, its task and the failed links. */
public final class UnreachableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UnreachableException(String message, Throwable cause) {
        super(message, cause);
    }
}
