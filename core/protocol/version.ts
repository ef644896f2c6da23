/**
 * The session protocol's version (core/protocol/, rpc's `ready` frame, the JSON Schema). Raised
 * when a command, event or field changes or goes away in a way an existing client would misread;
 * new commands, events and optional fields keep it, since clients ignore what they do not know.
 */
export const PROTOCOL_VERSION = 1;
