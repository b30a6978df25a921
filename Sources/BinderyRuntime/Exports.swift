@_exported import BinderyJSON
