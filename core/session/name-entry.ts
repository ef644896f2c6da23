/**
 * A custom entry naming the session (rpc set_session_name); the latest one is its title. Its own
 * module: the agent loop writes it, and importing it from the session listing would load the
 * listing's code on every start-up.
 */
export const SESSION_NAME_ENTRY = "omp.session_name";
