package org.clustersim.core.kernel;

/**
 * An exception raised inside a simulated event, carrying the simulated time at which it
 * happened and, where known, the task it belonged to.
 */
public class SimulationException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final long timeNs;

    public SimulationException(long timeNs, String context, Throwable cause) {
        super("at t=" + formatNs(timeNs) + (context == null ? "" : " in " + context) + ": " + messageOf(cause),
                cause);
        this.timeNs = timeNs;
    }

    public SimulationException(long timeNs, String message) {
        super("at t=" + formatNs(timeNs) + ": " + message);
        this.timeNs = timeNs;
    }

    /** Simulated time of the failure, nanoseconds. */
    public long timeNs() {
        return timeNs;
    }

    private static String messageOf(Throwable t) {
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }

    /** Formats nanoseconds as microseconds with three decimals, e.g. {@code 1234.567 us}. */
    public static String formatNs(long ns) {
        return String.format(java.util.Locale.ROOT, "%.3f us", ns / 1e3);
    }
}
