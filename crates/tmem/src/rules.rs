//! Rule catalogue.
