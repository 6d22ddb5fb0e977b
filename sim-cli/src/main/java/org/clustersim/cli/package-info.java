/**
 * The command line: the picocli commands ({@code run}, {@code validate}, {@code whatif},
 * {@code plan}, {@code goodput}, {@code calibrate}, ...), their shared option mixins, the checks
 * that refuse bad input (exit code 2) and work that cannot fit before anything runs, and the
 * all-or-nothing writing of every output of a command.
 *
 * <p>Depends on the study layer and everything below it; nothing but sim-bench depends on it.
 */
package org.clustersim.cli;
