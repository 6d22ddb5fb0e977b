package org.clustersim.study.plan;

import java.io.Serializable;

/**
 * A layout of a plan as a task: its index in the design space's order, the layout, and the
 * scenario text that describes it (what a task parses, whichever JVM it runs in).
 *
 * @param index    position in the enumeration (the tie-breaker everywhere)
 * @param layout   the layout
 * @param name     scenario name
 * @param file     the nominal scenario path: errors name it, relative paths resolve against its folder
 * @param scenario the scenario's YAML text
 */
public record Candidate(int index, Layout layout, String name, String file, String scenario) implements Serializable {
    private static final long serialVersionUID = 1L;
}
