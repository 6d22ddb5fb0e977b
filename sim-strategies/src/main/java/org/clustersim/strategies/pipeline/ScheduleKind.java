package org.clustersim.strategies.pipeline;

import java.util.Locale;
import java.util.Optional;

/**
 * Every pipeline schedule the product knows by name, whether or not it is implemented yet.
 * Names are the ones used on the command line and in scenario files.
 */
public enum ScheduleKind {
    GPIPE("gpipe"),
    ONE_F_ONE_B("1f1b"),
    INTERLEAVED("interleaved"),
    ZB_H1("zb-h1"),
    ZB_H2("zb-h2"),
    ZB_V("zb-v"),
    DUALPIPE("dualpipe"),
    DUALPIPE_V("dualpipev");

    private final String id;

    ScheduleKind(String id) {
        this.id = id;
    }

    /** The name used in files and on the command line. */
    public String id() {
        return id;
    }

    /** Whether the schedule takes a chunk count v (only interleaved; ZB-V and DualPipeV fix it at 2). */
    public boolean takesChunks() {
        return this == INTERLEAVED;
    }

    /** Chunks per rank the schedule always uses: 2 for the V shapes, 1 for the rest, 0 when v is chosen. */
    public int fixedChunks() {
        return switch (this) {
            case INTERLEAVED -> 0;
            case ZB_V, DUALPIPE_V -> 2;
            default -> 1;
        };
    }

    /**
     * The schedule generator.
     *
     * @param v chunks per rank: at least 2 for interleaved; 1 (meaning "the default") or the
     *          fixed count for the others (ZB-V and DualPipeV always place two chunks in a V)
     * @throws IllegalArgumentException for a chunk count the schedule cannot use
     */
    public PipelineSchedule schedule(int v) {
        if (!takesChunks() && v != 1 && v != fixedChunks()) {
            throw new IllegalArgumentException(id + " takes no chunk count v (got v=" + v + ")"
                    + (fixedChunks() == 2 ? "; it always places two chunks per rank in a V" : ""));
        }
        return switch (this) {
            case GPIPE -> new GPipeSchedule();
            case ONE_F_ONE_B -> new OneFOneBSchedule();
            case INTERLEAVED -> new InterleavedSchedule(v);
            case ZB_H1 -> new ZeroBubbleSchedule(ZeroBubbleSchedule.Variant.H1);
            case ZB_H2 -> new ZeroBubbleSchedule(ZeroBubbleSchedule.Variant.H2);
            case ZB_V -> new ZeroBubbleVSchedule();
            case DUALPIPE -> new DualPipeSchedule(false);
            case DUALPIPE_V -> new DualPipeSchedule(true);
        };
    }

    /** Names of all schedules, in declaration order. */
    public static String names() {
        StringBuilder sb = new StringBuilder();
        for (ScheduleKind k : values()) {
            sb.append(sb.length() == 0 ? "" : ", ").append(k.id);
        }
        return sb.toString();
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
