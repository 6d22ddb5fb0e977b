package org.clustersim.cli.report;

/** One legend entry: a colour and what it stands for. */
public record Legend(String label, String colour) {
}
