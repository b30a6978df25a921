// Generated modules import only BinderyRuntime; the JSON and HTTP types they use come with it.
//
// What only generated code calls (route tables, model schemas, field and body helpers) is `@_spi(Generated)`:
// generated files say `@_spi(Generated) import BinderyRuntime`, so a user's autocomplete shows the API they use.
@_exported import BinderyJSON
@_exported import HTTPTypes
