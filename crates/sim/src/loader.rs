pub fn load() {}
