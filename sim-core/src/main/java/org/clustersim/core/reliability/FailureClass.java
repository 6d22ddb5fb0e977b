package org.clustersim.core.reliability;

/**
 * Components of one kind whose failure interrupts the whole job (synchronous training stops
 * when any GPU, host, cable or switch it uses fails), each failing independently at a
 * constant rate: the job sees a Poisson process of {@code count / mtbfHours} failures per hour.
 *
 * @param name      e.g. gpu, host, link, switch
 * @param count     components the job depends on
 * @param mtbfHours mean time between failures of one component
 */
public record FailureClass(String name, long count, double mtbfHours) implements java.io.Serializable {
    public FailureClass {
        if (count < 0 || !(mtbfHours > 0)) {
            throw new IllegalArgumentException(name + ": count must be >= 0 and MTBF positive");
        }
    }

    /** Failures per second this class adds to the job. */
    public double ratePerSecond() {
        return count / (mtbfHours * 3600.0);
    }
}
