// express ships no types and @types/express is not installed; the OAuth test server only mounts
// the SDK's express routers on it.
declare module "express";
