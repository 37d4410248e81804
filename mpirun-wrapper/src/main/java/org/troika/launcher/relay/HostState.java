package org.troika.launcher.relay;

/**
 * One host's task service in the {@link TaskServicePool}:
 *
 * <pre>
 *   STARTING ──registered──► REGISTERED ──files, node store──► PROVISIONED
 *      │                        │                                 │
 *      └── start failed, ───────┴──── stopped (left the job, ─────┴──► STOPPED   (final)
 *          remote shell ended          job end)
 *                                   └──── lost (silent, disconnected) ─► LOST    (final)
 * </pre>
 *
 * A final state is never left: a host whose service is started again gets a new entry that begins at
 * {@link #STARTING}.
 */
public enum HostState {
    /** Its start step ran (remote shell, or a Spark task told to start it); not registered yet. */
    STARTING,
    /** Its service registered with the driver. */
    REGISTERED,
    /** It holds the job's files and node-store announcement: ready for a launch. */
    PROVISIONED,
    /** Its service disconnected or went silent after registering. */
    LOST,
    /** Told to stop, or its start failed (the remote shell ended first, or the start timeout passed). */
    STOPPED;

    /** Whether no transition leaves this state. */
    public boolean isFinal() {
        return this == LOST || this == STOPPED;
    }

    /** Whether a service registered and was not lost or stopped since. */
    public boolean isUp() {
        return this == REGISTERED || this == PROVISIONED;
    }

    /** Whether {@code next} may follow this state (pure). */
    public boolean canBecome(HostState next) {
        return switch (this) {
            case STARTING -> next == REGISTERED || next == STOPPED;
            case REGISTERED -> next == PROVISIONED || next == LOST || next == STOPPED;
            case PROVISIONED -> next == LOST || next == STOPPED;
            case LOST, STOPPED -> false;
        };
    }
}
