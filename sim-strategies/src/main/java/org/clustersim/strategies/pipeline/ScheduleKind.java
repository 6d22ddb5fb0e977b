package org.clustersim.strategies.pipeline;

import java.util.Locale;
import java.util.Optional;

/**
 * Every pipeline schedule the product knows by name, whether or not it is implemented yet.
 * Names are the ones used on the command line and in scenario files.
 */
public enum ScheduleKind {
    GPIPE("gpipe", true),
    ONE_F_ONE_B("1f1b", true),
    INTERLEAVED("interleaved", false),
    ZB_H1("zb-h1", false),
    ZB_H2("zb-h2", false),
    ZB_V("zb-v", false),
    DUALPIPE("dualpipe", false),
    DUALPIPE_V("dualpipev", false);

    private final String id;
    private final boolean implemented;

    ScheduleKind(String id, boolean implemented) {
        this.id = id;
        this.implemented = implemented;
    }

    /** The name used in files and on the command line. */
    public String id() {
        return id;
    }

    /** Whether a generator exists for this schedule. */
    public boolean implemented() {
        return implemented;
    }

    /** The schedule generator. */
    public PipelineSchedule schedule() {
        return switch (this) {
            case GPIPE -> new GPipeSchedule();
            case ONE_F_ONE_B -> new OneFOneBSchedule();
            default -> throw new UnsupportedOperationException("schedule " + id + " is not implemented yet");
        };
    }

    /** Looks a schedule up by its name, ignoring case. */
    public static Optional<ScheduleKind> byId(String id) {
        String key = id.toLowerCase(Locale.ROOT);
        for (ScheduleKind k : values()) {
            if (k.id.equals(key)) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }
}
