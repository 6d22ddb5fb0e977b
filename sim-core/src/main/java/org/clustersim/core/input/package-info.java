/**
 * Reading YAML and JSON input files with the line and column of every value, typed access to
 * their sections, and every error of a file collected before one exception that names the file,
 * line, column, dotted field path and what was expected.
 *
 * <p>Depends on Jackson and SnakeYAML only; the scenario and device-profile readers build on it.
 */
package org.clustersim.core.input;
